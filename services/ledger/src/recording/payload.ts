import { z } from 'zod';
import { meters } from '@gateway/lib/catalog';
import { principals } from '../db/tables/traces';

const digits = z.string().regex(/^\d+$/);
const nullableText = z.string().nullable();

/**
 * One stream entry: the trace and the ledger entry of one request, flat, in
 * column names. Record builds it from a validated request; the writer checks
 * it again when reading, since the stream outlives any one version of the code.
 */
export const recordPayloadSchema = z.object({
  request_id: z.string().regex(/^[0-9a-f]{32}$/),
  organization_id: z.guid(),
  api_key_id: z.guid().nullable(),
  agent_id: z.guid().nullable(),
  principal: z.enum(principals),
  client_label: z.string().max(200).nullable(),
  user_agent: nullableText,
  requested_model: nullableText,
  served_model: nullableText,
  tier: nullableText,
  complexity: z.number().int().nonnegative(),
  http_status: z.number().int(),
  error_class: nullableText,
  latency_ms: z.number().int().nonnegative(),
  input_tokens: digits,
  output_tokens: digits,
  priced: z.boolean(),
  cost_micros: digits.nullable(),
  /** Absent in entries queued before the price list version was recorded. */
  price_list_version: nullableText.optional(),
  /** Absent in entries queued before the routing policy version was recorded. */
  routing_policy_version: nullableText.optional(),
  stream: z.boolean(),
  started_at: z.iso.datetime(),
  recorded_at: z.iso.datetime(),
  meter: z.enum(meters),
  amount_micros: digits,
  requests: z.number().int().nonnegative(),
  /** First day of the period (`YYYY-MM-01`). */
  period: z.iso.date(),
});

export type RecordPayload = z.infer<typeof recordPayloadSchema>;
