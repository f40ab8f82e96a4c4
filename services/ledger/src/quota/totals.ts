import { sql, type Kysely } from 'kysely';
import { meters, type MeterName } from '@gateway/lib/catalog';
import type { LedgerDatabase } from '../db/schema';
import { periodDate, periodFromKey } from './period';
import type { CounterKey, PeriodTotals } from './store';

/**
 * What Postgres holds for an organization's period: the sums of its ledger
 * entries per meter, the purchased credits still unused and unexpired, and
 * the organization's own spend allowance when an operator set one.
 */
export async function periodTotals(db: Kysely<LedgerDatabase>, key: CounterKey, now: Date): Promise<PeriodTotals> {
  const [entries, credits, allowance] = await Promise.all([
    db
      .selectFrom('ledger_entries')
      .select(['meter', sql<string>`coalesce(sum(amount_micros), 0)::text`.as('amount'), sql<string>`coalesce(sum(requests), 0)::text`.as('requests')])
      .where('organization_id', '=', key.organizationId)
      .where('period', '=', sql<Date>`${periodDate(periodFromKey(key.period))}::date`)
      .groupBy('meter')
      .execute(),
    db
      .selectFrom('credits')
      .select(sql<string>`coalesce(sum(remaining), 0)::text`.as('remaining'))
      .where('organization_id', '=', key.organizationId)
      .where('remaining', '>', 0)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
      .executeTakeFirst(),
    db.selectFrom('allowances').select('monthly_allowance_micros').where('organization_id', '=', key.organizationId).executeTakeFirst(),
  ]);
  const used = Object.fromEntries(meters.map((meter) => [meter, 0n])) as Record<MeterName, bigint>;
  for (const row of entries) used[row.meter] = BigInt(row.meter === 'spend' ? row.amount : row.requests);
  return {
    used,
    credits: BigInt(credits?.remaining ?? '0'),
    ...(allowance ? { spendAllowance: BigInt(allowance.monthly_allowance_micros) } : {}),
  };
}
