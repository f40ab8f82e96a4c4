import type { Kysely } from 'kysely';
import { DomainError } from '@gateway/lib/errors';
import type { LedgerDatabase } from '../db/schema';
import { databaseFailure } from '../db/errors';
import type { CounterKey, QuotaStore } from './store';
import { periodTotals } from './totals';

export interface CounterDeps {
  db: Kysely<LedgerDatabase>;
  quota: QuotaStore;
}

/** Rebuilds under way per store, so a burst of first requests loads a period once. */
const rebuildsInFlight = new WeakMap<QuotaStore, Map<string, Promise<void>>>();

function rebuildOnce({ db, quota }: CounterDeps, key: CounterKey, now: Date): Promise<void> {
  const inFlight = rebuildsInFlight.get(quota) ?? new Map<string, Promise<void>>();
  rebuildsInFlight.set(quota, inFlight);
  const id = `${key.organizationId}:${key.period}`;
  const running = inFlight.get(id);
  if (running) return running;
  const rebuild = periodTotals(db, key, now)
    .catch((error: unknown) => {
      throw databaseFailure(error);
    })
    .then((totals) => quota.rebuild(key, totals))
    .finally(() => inFlight.delete(id));
  inFlight.set(id, rebuild);
  return rebuild;
}

/**
 * The store is a cache of the month: when a period's counters are missing
 * (first request of the month, or a Redis that lost its data) they are
 * loaded from the Postgres ledger, then the operation runs again.
 */
export async function withLoadedCounters<T>(
  deps: CounterDeps,
  key: CounterKey,
  now: Date,
  operation: () => Promise<T | { kind: 'missing' } | undefined>,
): Promise<T> {
  const first = await operation();
  if (!isMissing(first)) return first;
  await rebuildOnce(deps, key, now);
  const second = await operation();
  if (!isMissing(second)) return second;
  throw new DomainError('unavailable', 'The ledger store is unavailable.', { internalReason: 'counters missing right after a rebuild' });
}

function isMissing<T>(outcome: T | { kind: 'missing' } | undefined): outcome is { kind: 'missing' } | undefined {
  return outcome === undefined || (typeof outcome === 'object' && outcome !== null && 'kind' in outcome && outcome.kind === 'missing');
}
