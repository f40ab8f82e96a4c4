import { z } from 'zod';

/**
 * An allowance for the current UTC month (docs/api.md#limits-and-allowances), in its meter's own unit:
 * decimal USD strings with 6 places on `spend`, counts on `requests` and
 * `legacy`. `held` is what calls in flight hold until they settle; absent
 * where the ledger's answer did not report it.
 */
const resetsAt = z.string().nullable();
export const quotaSchema = z.discriminatedUnion('meter', [
  z.object({
    meter: z.literal('spend'),
    allowance_usd: z.string(),
    spent_usd: z.string(),
    remaining_usd: z.string(),
    held_usd: z.string().optional(),
    resets_at: resetsAt,
  }),
  z.object({
    meter: z.enum(['requests', 'legacy']),
    limit: z.number().int(),
    used: z.number().int(),
    remaining: z.number().int(),
    credits: z.number().int(),
    held: z.number().int().optional(),
    resets_at: resetsAt,
  }),
]);
export type QuotaJson = z.output<typeof quotaSchema>;
