import type { Logger } from '@gateway/lib/logging';
import { DomainError } from '@gateway/lib/errors';
import type { PromiseClient } from '@gateway/lib/grpc';
import type { LedgerServiceService, QuotaState, Subject } from '@gateway/proto/gen/gateway/ledger/v1/ledger';
import { BaselineReason, type PricingServiceService } from '@gateway/proto/gen/gateway/pricing/v1/pricing';
import { priceRequest, type PriceBook } from '@gateway/lib/pricing';
import type { LeasedCall } from './admission';
import type { PriceFacts } from './headers';
import type { HeldPriceList } from './price-list';
import type { TraceRecord } from './trace-record';

/**
 * The best-effort hops of the hot path and how each degrades (docs/decisions.md#the-gateway):
 * a quota check the ledger cannot answer lets the call through unmetered,
 * a price pricing cannot give leaves the cost empty (unpriced, never "0"),
 * a record the ledger does not take, or does not answer, says `x-service-metered: false`.
 * Authentication and routing are not here: without them there is no call.
 */
export type QuotaOutcome =
  | { kind: 'checked'; allowed: boolean; quota: QuotaState | undefined; retryAfterSeconds: number; reservationId: string }
  | { kind: 'unavailable' };

/**
 * Logs why a best-effort hop failed, unless the backend was unavailable: the
 * client then reports the outage once and counts each call
 * (`dependency_failures_total`), or the backend logged its own dependency's.
 * A timeout gets its message and no stack: a slow backend times out many
 * calls, each already counted by `rpc_client_duration`, and the stack of
 * the client's callback says nothing about why it was slow.
 */
export function logDegraded(logger: Logger, error: unknown, message: string): void {
  if (error instanceof DomainError && error.kind === 'unavailable') return;
  if (error instanceof DomainError && error.kind === 'timeout') logger.warn({ reason: error.message }, message);
  else logger.warn({ err: error }, message);
}

export async function checkQuota(
  ledger: PromiseClient<typeof LedgerServiceService>,
  logger: Logger,
  subject: Subject,
  requestId: string,
  worstCaseMicros: bigint,
): Promise<QuotaOutcome> {
  try {
    const answer = await ledger.checkQuota({ subject, requestId, estimatedCostMicros: worstCaseMicros.toString() });
    return {
      kind: 'checked',
      allowed: answer.allowed,
      quota: answer.quota,
      retryAfterSeconds: answer.retryAfterSeconds,
      reservationId: answer.reservationId,
    };
  } catch (error) {
    logDegraded(logger, error, 'quota check unavailable: serving unmetered');
    return { kind: 'unavailable' };
  }
}

export interface PriceInput {
  servedModel: string;
  requestedModel: string;
  planTier: string;
  tier: string;
  inputTokens: number;
  outputTokens: number;
}

/**
 * Prices the answer locally with lib's arithmetic over the price list held
 * (docs/decisions.md#the-price-list-edge-holds); with no list yet, asks pricing's `Price`. Undefined
 * when neither can price it: the response is unpriced.
 */
export async function priceCall(
  pricing: PromiseClient<typeof PricingServiceService>,
  priceList: HeldPriceList | undefined,
  logger: Logger,
  input: PriceInput,
): Promise<PriceFacts | undefined> {
  const book = priceList?.current();
  try {
    return book ? priceLocally(book, input) : await askPricing(pricing, input);
  } catch (error) {
    logDegraded(logger, error, `pricing unavailable: response is unpriced (price list held: ${book?.version ?? 'none'})`);
    return undefined;
  }
}

function priceLocally(book: PriceBook, input: PriceInput): PriceFacts {
  const result = priceRequest(book, { ...input, inputTokens: BigInt(input.inputTokens), outputTokens: BigInt(input.outputTokens) });
  // Not `{ ...result, priceListVersion }`: see gatewayHeaders (headers.ts) for why a spread given new keys is avoided per request.
  return Object.assign(result, { priceListVersion: book.version });
}

async function askPricing(pricing: PromiseClient<typeof PricingServiceService>, input: PriceInput): Promise<PriceFacts> {
  const answer = await pricing.price({
    servedModel: input.servedModel,
    requestedModel: input.requestedModel,
    planTier: input.planTier,
    tier: input.tier,
    inputTokens: String(input.inputTokens),
    outputTokens: String(input.outputTokens),
  });
  const baseline = answer.baseline;
  return {
    priced: answer.priced,
    costMicros: BigInt(answer.costMicros),
    savingsMicros: BigInt(answer.savingsMicros),
    savingsEstimatePct: answer.savingsEstimatePct,
    priceListVersion: answer.priceListVersion,
    ...(baseline && baseline.reason !== BaselineReason.BASELINE_REASON_UNSPECIFIED
      ? {
          baseline: {
            model: baseline.model,
            reason: baseline.reason === BaselineReason.BASELINE_REASON_NAMED ? ('named' as const) : ('plan_ceiling' as const),
            costMicros: BigInt(baseline.costMicros),
          },
        }
      : {}),
  };
}

export interface RecordOutcome {
  metered: boolean;
  quota: QuotaState | undefined;
}

/** How long a Record may take (docs/decisions.md#ledger-records-under-faults). */
export interface RecordTiming {
  /** The ledger commits the record only within this of receiving it, else answers not accepted (RECORD_DEADLINE_MS). */
  commitWithinMs: number;
  /** How long past that window edge waits for the answer to come back (RECORD_ANSWER_GRACE_MS). */
  answerGraceMs: number;
}

/**
 * `metered` is the ledger's answer, whether the record was committed or not:
 * edge waits for that answer rather than for its own timer, so a record
 * committed in time but answered late is not called unmetered. Only a call
 * that gets no answer (the ledger unavailable, which fails at once, or hung
 * past the window and the grace) is unmetered without the ledger saying so.
 * A Record that renewed the lease the call drew on (`lease`, whatever the
 * call's outcome) has it count its validity from when the Record was sent,
 * and hands it the answer's counters for the subject's next calls.
 */
export async function recordCall(
  ledger: PromiseClient<typeof LedgerServiceService>,
  logger: Logger,
  record: TraceRecord,
  { commitWithinMs, answerGraceMs }: RecordTiming,
  lease: Pick<LeasedCall, 'renewed'> | undefined,
): Promise<RecordOutcome> {
  try {
    const sentAtMs = Date.now();
    // Object.assign rather than a spread given a new key: see gatewayHeaders (headers.ts).
    const answer = await ledger.streamRecords(Object.assign({}, record, { commitWithinMs }), { deadlineMs: commitWithinMs + answerGraceMs });
    if (answer.leaseValidForMs > 0) lease?.renewed(sentAtMs, answer.leaseValidForMs, answer.quota);
    return { metered: answer.accepted, quota: answer.quota };
  } catch (error) {
    logDegraded(logger, error, 'ledger record failed: response is unmetered');
    return { metered: false, quota: undefined };
  }
}
