import type { Kysely } from 'kysely';
import type { LedgerDatabase } from '../db/schema';
import { databaseFailure } from '../db/errors';
import { periodOf } from '../quota/period';
import type { QuotaStore } from '../quota/store';

/**
 * Sets an organization's own monthly spend allowance in place of its plan's,
 * or (null) goes back to the plan's. Postgres is the record every period's
 * counters load it from; the running period's counters, if loaded, take it
 * at once, so the next request is admitted against it.
 */
export async function setSpendAllowance(
  { db, quota }: { db: Kysely<LedgerDatabase>; quota: QuotaStore },
  organizationId: string,
  micros: bigint | null,
  now = new Date(),
): Promise<{ countedNow: boolean }> {
  const organization = organizationId.toLowerCase();
  const write =
    micros === null
      ? db.deleteFrom('allowances').where('organization_id', '=', organization).execute()
      : db
          .insertInto('allowances')
          .values({ organization_id: organization, monthly_allowance_micros: micros })
          .onConflict((conflict) => conflict.column('organization_id').doUpdateSet({ monthly_allowance_micros: micros, updated_at: now }))
          .execute();
  await write.catch((error: unknown) => {
    throw databaseFailure(error);
  });
  // Not caught: a loaded period that kept the old allowance would admit against it until the month ends; rerunning is safe.
  const countedNow = await quota.setSpendAllowance({ organizationId: organization, period: periodOf(now).key }, micros);
  return { countedNow };
}
