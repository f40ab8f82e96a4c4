import { worstCaseOf, type CatalogModel, type ChatBodyShape, type WorstCase } from '@gateway/lib/catalog';
import { DomainError } from '@gateway/lib/errors';
import { formatUsd } from '@gateway/lib/money';
import { Meter, type QuotaState } from '@gateway/proto/gen/gateway/ledger/v1/ledger';

/**
 * Admission by worst-case cost (docs/decisions.md#admission-and-allowance-leases): once the router has named
 * the served model, the call holds the most it can cost at that model's
 * prices, so the allowance is never spent past, whatever the concurrency.
 */
export function worstCaseFor(models: ReadonlyMap<string, CatalogModel>, servedModel: string, upstreamBody: ChatBodyShape): WorstCase {
  const model = models.get(servedModel);
  if (!model) {
    // The router and edge read the same catalog; a model one lacks is a deployment out of step.
    throw new DomainError('unavailable', 'The gateway cannot price the served model yet. Retry shortly.', {
      internalReason: `served model ${servedModel} is not in edge's catalog`,
    });
  }
  return worstCaseOf(upstreamBody, model);
}


/**
 * The 402 of a refused call. On the spend meter it names the call's worst
 * case and what is left, and how to make the call fit; on the counting
 * meters one request no longer fits.
 */
export function quotaRefusal(quota: QuotaState | undefined, worstCase: WorstCase, retryAfterSeconds: number): DomainError {
  if (quota?.meter !== Meter.METER_SPEND) {
    return new DomainError('quota', 'Monthly allowance exhausted. It resets at the start of the next UTC month.', { retryAfterSeconds });
  }
  const message =
    `This request could cost up to $${formatUsd(worstCase.costMicros)} ` +
    `(at most ${worstCase.inputTokens} input and ${worstCase.outputTokens} output tokens), ` +
    `and $${formatUsd(BigInt(quota.remainingMicros))} of this month's allowance is left after the requests in flight. ` +
    'Set a lower max_completion_tokens (or max_tokens), or send a shorter prompt, so that it fits; ' +
    'the allowance resets at the start of the next UTC month.';
  return new DomainError('quota', message, { retryAfterSeconds });
}
