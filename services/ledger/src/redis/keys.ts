import type { CounterKey } from '../quota/store';

/**
 * Every Redis key of the ledger, under one prefix (REDIS_KEY_PREFIX), so that
 * separate deployments or test runs can share a server without sharing data.
 * An organization's keys of a period share the hash tag `{org}`.
 */
export interface LedgerKeys {
  counters(key: CounterKey): string;
  holds(key: CounterKey): string;
  holdExpiries(key: CounterKey): string;
  /** The record stream drained into Postgres. */
  stream: string;
  /** Its one consumer group. */
  group: string;
  /** The pub/sub channel on which an organization's allowance changes are announced (leases/changes.ts). */
  allowanceChanges: string;
}

export const DEFAULT_KEY_PREFIX = 'ledger';

export function ledgerKeys(prefix = DEFAULT_KEY_PREFIX): LedgerKeys {
  const counters = ({ organizationId, period }: CounterKey) => `${prefix}:quota:{${organizationId}}:${period}`;
  return {
    counters,
    holds: (key) => `${counters(key)}:holds`,
    holdExpiries: (key) => `${counters(key)}:hold-expiries`,
    stream: `${prefix}:records`,
    group: 'ledger-writers',
    allowanceChanges: `${prefix}:allowance-changes`,
  };
}
