import { z } from 'zod';
import { meters } from '@gateway/lib/catalog';
import { errorMapping } from '@gateway/lib/errors';
import { isStorableText, storableText } from '@gateway/lib/storable-text';
import { principals } from '../db/tables/traces';
import type { MeteredSubject } from '../quota/meter';
import { isPeriodKey } from '../quota/period';

/**
 * Every RPC request is checked here before any logic runs. Messages name the
 * field as the .proto does (snake_case) and say what is allowed.
 */
const MAX_INT64 = 9_223_372_036_854_775_807n;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TRACE_ID = /^[0-9a-f]{32}$/;
const errorClasses = [...new Set(Object.values(errorMapping).map(({ errorClass }) => errorClass))];

const int64 = z
  .string()
  .regex(/^\d+$/, 'must be a non-negative integer')
  .refine((value) => BigInt(value) <= MAX_INT64, 'must fit in a signed 64-bit integer')
  .transform((value) => BigInt(value));
const uuid = z
  .string()
  .regex(UUID, 'must be a UUID')
  .transform((value) => value.toLowerCase());
/** Proto strings cannot be absent: empty means "none". */
const optionalUuid = z
  .string()
  .refine((value) => value === '' || UUID.test(value), 'must be a UUID or empty')
  .transform((value) => (value === '' ? null : value.toLowerCase()));
const optionalText = (maxLength: number) =>
  z
    .string()
    .max(maxLength, `must be at most ${maxLength} characters`)
    .transform((value) => (value === '' ? null : value));
const requestId = z.string().regex(TRACE_ID, 'must be a trace id (32 lower-case hex characters)');
const nonNegativeInt = z.number().int().nonnegative('must not be negative');

const subject = z.object(
  {
    organizationId: uuid,
    agentId: optionalUuid,
    planTier: z.string().min(1, 'is required').max(100, 'must be at most 100 characters'),
    byok: z.boolean(),
    messagesLimit: int64,
    enforce: z.boolean(),
  },
  { error: 'is required' },
) satisfies z.ZodType<MeteredSubject, unknown>;

export const checkQuotaSchema = z.object({
  subject,
  requestId,
  estimatedCostMicros: int64,
});
export type ValidCheckQuota = z.infer<typeof checkQuotaSchema>;

export const getQuotaSchema = z.object({ subject });

/** `YYYY-MM:<request id>`: the period the hold was taken in, and the hold. */
const reservationId = z
  .string()
  .refine((value) => {
    if (value === '') return true;
    const [period = '', holdId = '', ...rest] = value.split(':');
    return rest.length === 0 && isPeriodKey(period) && TRACE_ID.test(holdId);
  }, 'must be empty or a reservation_id returned by CheckQuota')
  .transform((value) => {
    if (value === '') return null;
    const [period = '', holdId = ''] = value.split(':');
    return { period, holdId };
  });

const HOLDER_ID_MAX = 200;
/** One edge replica's name for itself; it becomes part of a Redis hash field (the lease's hold). */
const holderId = storableText()
  .min(1, 'is required')
  .max(HOLDER_ID_MAX, `must be at most ${HOLDER_ID_MAX} characters`);

/** Lease amounts are computed with in Lua, whose numbers are exact up to 2^53 ($9 billion in micro-dollars). */
const leaseAmount = int64.refine((value) => value <= BigInt(Number.MAX_SAFE_INTEGER), `must be at most ${Number.MAX_SAFE_INTEGER}`);

export const leaseSchema = z.object({
  subject,
  holderId,
  need: leaseAmount,
  want: leaseAmount,
  giveBack: leaseAmount,
});
export type ValidLease = z.infer<typeof leaseSchema>;

export const watchLeasesSchema = z.object({ holderId });

/** `YYYY-MM:lease:<holder id>:<meter>`: the period the lease was held in, and its hold (leases/lease.ts). */
const LEASE_HOLD = new RegExp(`^lease:(.+):(?:${meters.join('|')})$`, 's');
const leaseId = z
  .string()
  .refine((value) => {
    if (value === '') return true;
    const separator = value.indexOf(':');
    const holder = LEASE_HOLD.exec(value.slice(separator + 1))?.[1];
    return isPeriodKey(value.slice(0, separator)) && holder !== undefined && holder.length <= HOLDER_ID_MAX && isStorableText(holder);
  }, 'must be empty or a lease_id returned by Lease')
  .transform((value) => {
    if (value === '') return null;
    const separator = value.indexOf(':');
    return { period: value.slice(0, separator), holdId: value.slice(separator + 1) };
  });

export const recordSchema = z
  .object({
    subject,
    requestId,
    reservationId,
    leaseId,
    apiKeyId: optionalUuid,
    principal: z.enum(principals, { error: `must be one of ${principals.join(', ')}` }),
    clientLabel: optionalText(200),
    userAgent: optionalText(1024),
    requestedModel: optionalText(200),
    servedModel: optionalText(200),
    tier: optionalText(100),
    complexity: nonNegativeInt,
    httpStatus: z.number().int().min(100, 'must be an HTTP status (100 to 599)').max(599, 'must be an HTTP status (100 to 599)'),
    errorClass: z
      .string()
      .refine((value) => value === '' || (errorClasses as string[]).includes(value), `must be empty or one of ${errorClasses.join(', ')}`)
      .transform((value) => (value === '' ? null : value)),
    latencyMs: nonNegativeInt,
    inputTokens: int64,
    outputTokens: int64,
    priced: z.boolean(),
    costMicros: int64,
    priceListVersion: optionalText(100),
    routingPolicyVersion: optionalText(100),
    stream: z.boolean(),
    startedAt: z.date({ error: 'is required' }),
    consumed: z.boolean(),
    /** 0: the caller set no commit window (see commitDeadline). */
    commitWithinMs: nonNegativeInt,
  })
  .refine((record) => record.reservationId === null || record.reservationId.holdId === record.requestId, {
    path: ['reservationId'],
    message: 'belongs to another request_id',
  })
  .refine((record) => record.reservationId === null || record.leaseId === null, {
    path: ['leaseId'],
    message: 'must be empty when reservation_id is set: a call is admitted by a reservation or a lease, not both',
  });
export type ValidRecord = z.infer<typeof recordSchema>;
