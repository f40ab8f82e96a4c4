import type { Kysely } from 'kysely';
import { z } from 'zod';
import { DomainError } from '@gateway/lib/errors';
import type { LedgerDatabase } from '../db/schema';
import { databaseFailure } from '../db/errors';
import { periodOf } from '../quota/period';
import type { QuotaStore } from '../quota/store';

const grantSchema = z.object({
  organizationId: z.guid('organizationId: must be a UUID'),
  amount: z.number().int('amount: must be a whole number').positive('amount: must be positive'),
  expiresAt: z.date().nullable().default(null),
});

export type CreditGrant = z.input<typeof grantSchema>;

export interface GrantedCredits {
  id: string;
  /** False when the period's counters are not loaded: the next rebuild reads the credits from Postgres. */
  countedNow: boolean;
}

/**
 * Records a purchase of credits (requests or messages beyond the plan's
 * limit). Postgres is the record; the running period's counters, if loaded,
 * get the credits at once so the next request can use them.
 */
export async function grantCredits(
  { db, quota }: { db: Kysely<LedgerDatabase>; quota: QuotaStore },
  grant: CreditGrant,
  now = new Date(),
): Promise<GrantedCredits> {
  const parsed = grantSchema.safeParse(grant);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new DomainError('validation', issue?.message ?? 'invalid credit grant', { field: String(issue?.path[0] ?? '') });
  }
  const { organizationId, amount, expiresAt } = parsed.data;
  if (expiresAt !== null && expiresAt <= now) throw new DomainError('validation', 'expiresAt: must be in the future', { field: 'expiresAt' });
  const row = await db
    .insertInto('credits')
    .values({ organization_id: organizationId, amount, remaining: amount, expires_at: expiresAt })
    .returning('id')
    .executeTakeFirstOrThrow()
    .catch((error: unknown) => {
      throw databaseFailure(error);
    });
  const countedNow = await quota.addCredits({ organizationId: organizationId.toLowerCase(), period: periodOf(now).key }, BigInt(amount)).catch(() => false);
  return { id: row.id, countedNow };
}
