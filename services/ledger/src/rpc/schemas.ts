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

/*
 * Each field schema only checks; a message's schema converts its checked
 * fields in one step at its end, so a Record's check (the one on the hot
 * path) visits one node per field, not a pipe and a transform per field.
 */
const DIGITS = /^\d+$/;
// zod runs every check of a string even after one fails: the range check must not parse what is not digits.
const int64Text = z
  .string()
  .regex(DIGITS, 'must be a non-negative integer')
  .refine((value) => !DIGITS.test(value) || BigInt(value) <= MAX_INT64, 'must fit in a signed 64-bit integer');
const int64 = int64Text.transform((value) => BigInt(value));
const uuidText = z.string().regex(UUID, 'must be a UUID');
/** Proto strings cannot be absent: empty means "none". */
const optionalUuidText = z.string().refine((value) => value === '' || UUID.test(value), 'must be a UUID or empty');
const optionalTextChecks = (maxLength: number) => z.string().max(maxLength, `must be at most ${maxLength} characters`);
const requestId = z.string().regex(TRACE_ID, 'must be a trace id (32 lower-case hex characters)');
const nonNegativeInt = z.number().int().nonnegative('must not be negative');

function noneIfEmpty(value: string): string | null {
  return value === '' ? null : value;
}

function optionalUuidOf(value: string): string | null {
  return value === '' ? null : value.toLowerCase();
}

const subjectChecks = z.object(
  {
    organizationId: uuidText,
    agentId: optionalUuidText,
    planTier: z.string().min(1, 'is required').max(100, 'must be at most 100 characters'),
    byok: z.boolean(),
    messagesLimit: int64Text,
    enforce: z.boolean(),
  },
  { error: 'is required' },
);

function meteredSubjectOf(checked: z.output<typeof subjectChecks>): MeteredSubject {
  return {
    ...checked,
    organizationId: checked.organizationId.toLowerCase(),
    agentId: optionalUuidOf(checked.agentId),
    messagesLimit: BigInt(checked.messagesLimit),
  };
}

const subject = subjectChecks.transform(meteredSubjectOf);

export const checkQuotaSchema = z.object({
  subject,
  requestId,
  estimatedCostMicros: int64,
});
export type ValidCheckQuota = z.infer<typeof checkQuotaSchema>;

export const getQuotaSchema = z.object({ subject });

/** `YYYY-MM:<request id>`: the period the hold was taken in, and the hold. */
const reservationIdText = z.string().refine((value) => {
  if (value === '') return true;
  const [period = '', holdId = '', ...rest] = value.split(':');
  return rest.length === 0 && isPeriodKey(period) && TRACE_ID.test(holdId);
}, 'must be empty or a reservation_id returned by CheckQuota');

/** A checked `YYYY-MM:<hold>` id, split; null when empty. */
function periodAndHoldOf(value: string): { period: string; holdId: string } | null {
  if (value === '') return null;
  const separator = value.indexOf(':');
  return { period: value.slice(0, separator), holdId: value.slice(separator + 1) };
}

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
const leaseIdText = z.string().refine((value) => {
  if (value === '') return true;
  const separator = value.indexOf(':');
  const holder = LEASE_HOLD.exec(value.slice(separator + 1))?.[1];
  return isPeriodKey(value.slice(0, separator)) && holder !== undefined && holder.length <= HOLDER_ID_MAX && isStorableText(holder);
}, 'must be empty or a lease_id returned by Lease');

const recordChecks = z
  .object({
    subject: subjectChecks,
    requestId,
    reservationId: reservationIdText,
    leaseId: leaseIdText,
    apiKeyId: optionalUuidText,
    principal: z.enum(principals, { error: `must be one of ${principals.join(', ')}` }),
    clientLabel: optionalTextChecks(200),
    userAgent: optionalTextChecks(1024),
    requestedModel: optionalTextChecks(200),
    servedModel: optionalTextChecks(200),
    tier: optionalTextChecks(100),
    complexity: nonNegativeInt,
    httpStatus: z.number().int().min(100, 'must be an HTTP status (100 to 599)').max(599, 'must be an HTTP status (100 to 599)'),
    errorClass: z
      .string()
      .refine((value) => value === '' || (errorClasses as string[]).includes(value), `must be empty or one of ${errorClasses.join(', ')}`),
    latencyMs: nonNegativeInt,
    inputTokens: int64Text,
    outputTokens: int64Text,
    priced: z.boolean(),
    costMicros: int64Text,
    priceListVersion: optionalTextChecks(100),
    routingPolicyVersion: optionalTextChecks(100),
    stream: z.boolean(),
    startedAt: z.date({ error: 'is required' }),
    consumed: z.boolean(),
    /** 0: the caller set no commit window (see commitDeadline). */
    commitWithinMs: nonNegativeInt,
  })
  .refine((record) => record.reservationId === '' || record.reservationId.endsWith(`:${record.requestId}`), {
    path: ['reservationId'],
    message: 'belongs to another request_id',
  })
  .refine((record) => record.reservationId === '' || record.leaseId === '', {
    path: ['leaseId'],
    message: 'must be empty when reservation_id is set: a call is admitted by a reservation or a lease, not both',
  });

export const recordSchema = recordChecks.transform((checked) => ({
  ...checked,
  subject: meteredSubjectOf(checked.subject),
  reservationId: periodAndHoldOf(checked.reservationId),
  leaseId: periodAndHoldOf(checked.leaseId),
  apiKeyId: optionalUuidOf(checked.apiKeyId),
  clientLabel: noneIfEmpty(checked.clientLabel),
  userAgent: noneIfEmpty(checked.userAgent),
  requestedModel: noneIfEmpty(checked.requestedModel),
  servedModel: noneIfEmpty(checked.servedModel),
  tier: noneIfEmpty(checked.tier),
  errorClass: noneIfEmpty(checked.errorClass),
  inputTokens: BigInt(checked.inputTokens),
  outputTokens: BigInt(checked.outputTokens),
  costMicros: BigInt(checked.costMicros),
  priceListVersion: noneIfEmpty(checked.priceListVersion),
  routingPolicyVersion: noneIfEmpty(checked.routingPolicyVersion),
}));
export type ValidRecord = z.infer<typeof recordSchema>;
