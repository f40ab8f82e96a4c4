import { formatUsd, parseUsd } from '@gateway/lib/money';
import type { CreditRow, LedgerAdmin, QuotaSnapshot } from '@gateway/ledger/admin';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { AuthDatabase } from '../db/schema';
import { requireOrganization } from './commands';

/**
 * The operator's money commands: purchased credits and the quota state of
 * an organization, read and written where the ledger keeps them (its
 * Postgres record and Redis counters). Amounts stay integers: credits are
 * requests or messages, money is micro-dollars, printed both as the integer
 * and as the exact decimal USD string. Each takes its input as the command
 * line parsed it (`z.output` of its schema).
 */
const organizationId = z.uuid('must be the id (a UUID) of an organization');
/** Postgres integer column. */
const MAX_CREDITS = 2_147_483_647;

export const grantCreditsInput = z.object({
  org: organizationId,
  amount: z
    .string({ error: 'is required' })
    .regex(/^\d+$/, 'must be a whole number of requests or messages')
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be at least 1').max(MAX_CREDITS, `must be at most ${MAX_CREDITS}`)),
  expiresAt: z.iso
    .datetime({ offset: true, error: 'must be an ISO-8601 date-time with a time zone, e.g. 2030-01-31T00:00:00Z' })
    .transform((value) => new Date(value))
    .optional(),
});
export const organizationInput = z.object({ org: organizationId });

/** The bigint column's bound. */
const MAX_MICROS = 9_223_372_036_854_775_807n;
/** `12.50` exactly (at most 6 decimal places, never through a float), or `plan` to go back to the plan's allowance. */
export const setAllowanceInput = z.object({
  org: organizationId,
  usd: z
    .string({ error: 'is required: an amount in USD such as 12.50, or "plan"' })
    .trim()
    .refine((value) => value === 'plan' || /^\d+(\.\d{1,6})?$/.test(value), 'must be an amount in USD with at most 6 decimal places (e.g. 12.50), or "plan"')
    .transform((value) => (value === 'plan' ? null : parseUsd(value)))
    .refine((micros) => micros === null || micros <= MAX_MICROS, 'is too large'),
});

function creditJson(row: CreditRow) {
  return {
    id: row.id,
    amount: row.amount,
    remaining: row.remaining,
    purchased_at: row.purchased_at.toISOString(),
    expires_at: row.expires_at?.toISOString() ?? null,
  };
}

export async function grantCredits(db: Kysely<AuthDatabase>, ledger: LedgerAdmin, { org, amount, expiresAt }: z.output<typeof grantCreditsInput>) {
  await requireOrganization(db, org);
  const granted = await ledger.grantCredits({ organizationId: org, amount, expiresAt: expiresAt ?? null });
  const row = (await ledger.listCredits(org)).find((credit) => credit.id === granted.id);
  return { organization_id: org, credit: row ? creditJson(row) : { id: granted.id }, counted_now: granted.countedNow };
}

export async function listCredits(db: Kysely<AuthDatabase>, ledger: LedgerAdmin, { org }: z.output<typeof organizationInput>) {
  await requireOrganization(db, org);
  return { organization_id: org, credits: (await ledger.listCredits(org)).map(creditJson) };
}

function quotaJson(quota: QuotaSnapshot) {
  const resets_at = quota.resetsAt.toISOString();
  if (quota.meter === 'spend') {
    const money = (name: string, micros: bigint | undefined) =>
      micros === undefined ? {} : { [`${name}_micros`]: micros.toString(), [`${name}_usd`]: formatUsd(micros) };
    return {
      meter: quota.meter,
      ...money('allowance', quota.allowanceMicros),
      ...money('spent', quota.spentMicros),
      ...money('held', quota.heldMicros),
      ...money('remaining', quota.remainingMicros),
      resets_at,
    };
  }
  return {
    meter: quota.meter,
    limit: quota.limit.toString(),
    used: quota.used.toString(),
    held: quota.held?.toString(),
    credits: quota.credits.toString(),
    remaining: quota.remaining.toString(),
    resets_at,
  };
}

/**
 * The organization's own monthly allowance on the spend meter, in place of
 * its plan's: managed traffic is admitted against it from the next request.
 * Plans metered in requests have no dollar allowance to replace.
 */
export async function setAllowance(db: Kysely<AuthDatabase>, ledger: LedgerAdmin, { org, usd }: z.output<typeof setAllowanceInput>) {
  const { planTier } = await requireOrganization(db, org);
  const { countedNow } = await ledger.setSpendAllowance(org, usd);
  return {
    organization_id: org,
    plan: planTier,
    monthly_allowance: usd === null ? 'plan' : { micros: usd.toString(), usd: formatUsd(usd) },
    counted_now: countedNow,
  };
}

/** The allowance the organization's own keys count on (managed traffic, enforced), as the gateway reads it now. */
export async function showQuota(db: Kysely<AuthDatabase>, ledger: LedgerAdmin, { org }: z.output<typeof organizationInput>) {
  const { planTier } = await requireOrganization(db, org);
  const quota = await ledger.quota({ organizationId: org, agentId: null, planTier, byok: false, messagesLimit: 0n, enforce: true });
  return { organization_id: org, plan: planTier, ...quotaJson(quota) };
}
