import type { Transaction } from 'kysely';
import type { LedgerDatabase } from '../db/schema';

/**
 * Takes `count` purchased credits from an organization, those that expire
 * first before those that never do. Rows are locked in one order, so two
 * writers consuming the same organization's credits wait, never deadlock.
 */
export async function consumeCredits(trx: Transaction<LedgerDatabase>, organizationId: string, count: number, now: Date): Promise<void> {
  const held = await trx
    .selectFrom('credits')
    .select(['id', 'remaining'])
    .where('organization_id', '=', organizationId)
    .where('remaining', '>', 0)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .orderBy('expires_at', (order) => order.asc().nullsLast())
    .orderBy('purchased_at')
    .orderBy('id')
    .forUpdate()
    .execute();
  let left = count;
  for (const { id, remaining } of held) {
    if (left === 0) break;
    const taken = Math.min(remaining, left);
    await trx
      .updateTable('credits')
      .set((eb) => ({ remaining: eb('remaining', '-', taken) }))
      .where('id', '=', id)
      .execute();
    left -= taken;
  }
}
