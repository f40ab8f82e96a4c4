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
const DIGITS = /^\d+$/;
const errorClasses: readonly string[] = [...new Set(Object.values(errorMapping).map(({ errorClass }) => errorClass))];

/*
 * A rule says what is wrong with one field's value, or nothing; every
 * message's check is built from these. The Record's schema, checked once per
 * request on the hot path, is its fields' types, then all of its rules in one
 * pass (applyRules), then one conversion at its end: a zod check per field made
 * it several times dearer, most of all in a process that wakes cold for each
 * record (docs/performance.md). The other messages check a field at a time.
 */
type Rule<Value> = (value: Value) => string | undefined;

const int64TextRule: Rule<string> = (value) => {
  if (!DIGITS.test(value)) return 'must be a non-negative integer';
  // Fewer than 19 digits always fit: only a longer one is worth a BigInt.
  return value.length >= 19 && BigInt(value) > MAX_INT64 ? 'must fit in a signed 64-bit integer' : undefined;
};
const uuidRule: Rule<string> = (value) => (UUID.test(value) ? undefined : 'must be a UUID');
/** Proto strings cannot be absent: empty means "none". */
const optionalUuidRule: Rule<string> = (value) => (value === '' || UUID.test(value) ? undefined : 'must be a UUID or empty');
const requestIdRule: Rule<string> = (value) => (TRACE_ID.test(value) ? undefined : 'must be a trace id (32 lower-case hex characters)');
const lengthWithin =
  (minLength: number, maxLength: number): Rule<string> =>
  (value) => {
    if (value.length < minLength) return 'is required';
    return value.length > maxLength ? `must be at most ${maxLength} characters` : undefined;
  };
const nonNegativeIntRule: Rule<number> = (value) => {
  if (!Number.isInteger(value)) return 'must be an integer';
  return value < 0 ? 'must not be negative' : undefined;
};
const httpStatusRule: Rule<number> = (value) =>
  Number.isInteger(value) && value >= 100 && value <= 599 ? undefined : 'must be an HTTP status (100 to 599)';
const errorClassRule: Rule<string> = (value) =>
  value === '' || errorClasses.includes(value) ? undefined : `must be empty or one of ${errorClasses.join(', ')}`;

/** The rules of an object's fields, each applied to its own field. */
type FieldRules<Shape> = { [Field in keyof Shape]?: Rule<Shape[Field]> };

/** Applies every rule in one pass, reporting each broken one at its field. */
function applyRules<Shape extends object>(rules: FieldRules<Shape>): (value: Shape, context: z.RefinementCtx) => void {
  const ruled = Object.entries(rules) as Array<[keyof Shape & string, Rule<Shape[keyof Shape]>]>;
  return (value, context) => {
    for (const [field, rule] of ruled) {
      const message = rule(value[field]);
      if (message !== undefined) context.addIssue({ code: 'custom', path: [field], message });
    }
  };
}

/** A string field checked by one rule: for the messages off the hot path. */
const ruledText = (rule: Rule<string>) =>
  z.string().superRefine((value, context) => {
    const message = rule(value);
    if (message !== undefined) context.addIssue({ code: 'custom', message });
  });

const int64 = ruledText(int64TextRule).transform((value) => BigInt(value));
const requestId = ruledText(requestIdRule);

function noneIfEmpty(value: string): string | null {
  return value === '' ? null : value;
}

function optionalUuidOf(value: string): string | null {
  return value === '' ? null : value.toLowerCase();
}

const subjectFields = z.object(
  {
    organizationId: z.string(),
    agentId: z.string(),
    planTier: z.string(),
    byok: z.boolean(),
    messagesLimit: z.string(),
    enforce: z.boolean(),
  },
  { error: 'is required' },
);

const subjectChecks = subjectFields.superRefine(
  applyRules<z.output<typeof subjectFields>>({
    organizationId: uuidRule,
    agentId: optionalUuidRule,
    planTier: lengthWithin(1, 100),
    messagesLimit: int64TextRule,
  }),
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
const reservationIdRule: Rule<string> = (value) => {
  if (value === '') return undefined;
  const [period = '', holdId = '', ...rest] = value.split(':');
  return rest.length === 0 && isPeriodKey(period) && TRACE_ID.test(holdId) ? undefined : 'must be empty or a reservation_id returned by CheckQuota';
};

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
const leaseIdRule: Rule<string> = (value) => {
  if (value === '') return undefined;
  const separator = value.indexOf(':');
  const holder = LEASE_HOLD.exec(value.slice(separator + 1))?.[1];
  const valid = isPeriodKey(value.slice(0, separator)) && holder !== undefined && holder.length <= HOLDER_ID_MAX && isStorableText(holder);
  return valid ? undefined : 'must be empty or a lease_id returned by Lease';
};

const recordFields = z.object({
  subject: subjectChecks,
  requestId: z.string(),
  reservationId: z.string(),
  leaseId: z.string(),
  apiKeyId: z.string(),
  principal: z.enum(principals, { error: `must be one of ${principals.join(', ')}` }),
  clientLabel: z.string(),
  userAgent: z.string(),
  requestedModel: z.string(),
  servedModel: z.string(),
  tier: z.string(),
  complexity: z.number(),
  httpStatus: z.number(),
  errorClass: z.string(),
  latencyMs: z.number(),
  inputTokens: z.string(),
  outputTokens: z.string(),
  priced: z.boolean(),
  costMicros: z.string(),
  priceListVersion: z.string(),
  routingPolicyVersion: z.string(),
  stream: z.boolean(),
  startedAt: z.date({ error: 'is required' }),
  consumed: z.boolean(),
  /** 0: the caller set no commit window (see commitDeadline). */
  commitWithinMs: z.number(),
});
type RecordFields = z.output<typeof recordFields>;

const recordFieldRules = applyRules<RecordFields>({
  requestId: requestIdRule,
  reservationId: reservationIdRule,
  leaseId: leaseIdRule,
  apiKeyId: optionalUuidRule,
  clientLabel: lengthWithin(0, 200),
  userAgent: lengthWithin(0, 1024),
  requestedModel: lengthWithin(0, 200),
  servedModel: lengthWithin(0, 200),
  tier: lengthWithin(0, 100),
  complexity: nonNegativeIntRule,
  httpStatus: httpStatusRule,
  errorClass: errorClassRule,
  latencyMs: nonNegativeIntRule,
  inputTokens: int64TextRule,
  outputTokens: int64TextRule,
  costMicros: int64TextRule,
  priceListVersion: lengthWithin(0, 100),
  routingPolicyVersion: lengthWithin(0, 100),
  commitWithinMs: nonNegativeIntRule,
});

const recordChecks = recordFields.superRefine((record, context) => {
  recordFieldRules(record, context);
  if (record.reservationId !== '' && !record.reservationId.endsWith(`:${record.requestId}`)) {
    context.addIssue({ code: 'custom', path: ['reservationId'], message: 'belongs to another request_id' });
  }
  if (record.reservationId !== '' && record.leaseId !== '') {
    context.addIssue({
      code: 'custom',
      path: ['leaseId'],
      message: 'must be empty when reservation_id is set: a call is admitted by a reservation or a lease, not both',
    });
  }
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
