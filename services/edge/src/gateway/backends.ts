import type { Logger } from '@gateway/lib/logging';
import { DomainError } from '@gateway/lib/errors';
import type { PromiseClient } from '@gateway/lib/grpc';
import type { LedgerServiceService, QuotaState, RecordRequest, Subject } from '@gateway/proto/gen/gateway/ledger/v1/ledger';
import { BaselineReason, type PricingServiceService } from '@gateway/proto/gen/gateway/pricing/v1/pricing';
import type { PriceFacts } from './headers';

/**
 * The best-effort hops of the hot path and how each degrades (docs/decisions.md#the-gateway):
 * a quota check the ledger cannot answer lets the call through unmetered,
 * a price pricing cannot give leaves the cost empty (unpriced, never "0"),
 * a record the ledger cannot take says `x-service-metered: false`.
 * Authentication and routing are not here: without them there is no call.
 */
export type QuotaOutcome =
  | { kind: 'checked'; allowed: boolean; quota: QuotaState | undefined; retryAfterSeconds: number; reservationId: string }
  | { kind: 'unavailable' };

export async function checkQuota(
  ledger: PromiseClient<typeof LedgerServiceService>,
  logger: Logger,
  subject: Subject,
  requestId: string,
  estimatedCostMicros: bigint,
): Promise<QuotaOutcome> {
  try {
    const answer = await ledger.checkQuota({ subject, requestId, estimatedCostMicros: estimatedCostMicros.toString() });
    return {
      kind: 'checked',
      allowed: answer.allowed,
      quota: answer.quota,
      retryAfterSeconds: answer.retryAfterSeconds,
      reservationId: answer.reservationId,
    };
  } catch (error) {
    logger.warn({ err: error }, 'quota check unavailable: serving unmetered');
    return { kind: 'unavailable' };
  }
}

export function quotaExhausted(retryAfterSeconds: number): DomainError {
  return new DomainError('quota', 'Monthly allowance exhausted. It resets at the start of the next UTC month.', {
    retryAfterSeconds,
  });
}

export interface PriceInput {
  servedModel: string;
  requestedModel: string;
  planTier: string;
  tier: string;
  inputTokens: number;
  outputTokens: number;
}

/** Undefined when pricing did not answer: the response is unpriced. */
export async function priceCall(
  pricing: PromiseClient<typeof PricingServiceService>,
  logger: Logger,
  input: PriceInput,
): Promise<PriceFacts | undefined> {
  try {
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
  } catch (error) {
    logger.warn({ err: error }, 'pricing unavailable: response is unpriced');
    return undefined;
  }
}

export interface RecordOutcome {
  metered: boolean;
  quota: QuotaState | undefined;
}

export async function recordCall(
  ledger: PromiseClient<typeof LedgerServiceService>,
  logger: Logger,
  record: RecordRequest,
  deadlineMs: number,
): Promise<RecordOutcome> {
  try {
    const answer = await ledger.record(record, { deadlineMs });
    return { metered: answer.accepted, quota: answer.quota };
  } catch (error) {
    logger.warn({ err: error }, 'ledger record failed: response is unmetered');
    return { metered: false, quota: undefined };
  }
}
