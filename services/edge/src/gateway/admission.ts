import { meterOfTraffic, worstCaseOf, type CatalogModel, type ChatBodyShape, type MeterName, type WorstCase } from '@gateway/lib/catalog';
import { DomainError } from '@gateway/lib/errors';
import { formatUsd } from '@gateway/lib/money';
import type { PriceBook } from '@gateway/lib/pricing';
import { Meter, type QuotaState, type Subject } from '@gateway/proto/gen/gateway/ledger/v1/ledger';
import { checkQuota } from './backends';
import type { GatewayCatalog, GatewayDeps } from './deps';

/**
 * Admission by worst-case cost (docs/decisions.md#admission-and-allowance-leases): once the router has named
 * the served model, the call holds the most it can cost at that model's
 * prices, so the allowance is never spent past, whatever the concurrency.
 */
export function worstCaseFor(
  models: ReadonlyMap<string, CatalogModel>,
  priceList: PriceBook | undefined,
  servedModel: string,
  upstreamBody: ChatBodyShape,
): WorstCase {
  const model = models.get(servedModel);
  if (!model) {
    // The router and edge read the same catalog; a model one lacks is a deployment out of step.
    throw new DomainError('unavailable', 'The gateway cannot price the served model yet. Retry shortly.', {
      internalReason: `served model ${servedModel} is not in edge's catalog`,
    });
  }
  // The limits are the catalog's; the prices are those the answer will be charged at: the list pricing publishes, once held.
  const listed = priceList?.models.get(servedModel);
  return worstCaseOf(upstreamBody, listed ? { ...model, ...listed } : model);
}

/** A call admitted against this replica's lease, settled against it once it is over. */
export interface LeasedCall {
  leaseId: string;
  meter: MeterName;
  finish(usage: bigint): void;
  renewed(sentAtMs: number, validForMs: number, quota: QuotaState | undefined): void;
}

/** What admission decided, and what the Record must carry for it. */
export interface CallAdmission {
  /** A reservation of the call's own (CheckQuota); empty otherwise. */
  reservationId: string;
  lease?: LeasedCall;
  /** Undefined when the ledger did not answer: served unenforced. */
  quota: QuotaState | undefined;
  /** Set when the ledger refused the call. */
  refusedFor?: { retryAfterSeconds: number };
}

/** The meter a leased subject's calls count on, by the ledger's rule. Undefined for a plan edge's catalog lacks. */
export function meterOf(planMeters: ReadonlyMap<string, MeterName>, subject: Subject): MeterName | undefined {
  const planMeter = planMeters.get(subject.planTier);
  return planMeter === undefined ? undefined : meterOfTraffic(planMeter, subject.byok);
}

/**
 * Admits the call: enforced subjects against this replica's lease (their
 * worst-case cost on the spend meter, one request on the others); legacy
 * credentials, which are measured and never refused, with a reservation of
 * their own as before. A ledger that cannot be asked lets the call through.
 */
export async function admitCall(
  deps: GatewayDeps,
  { planMeters }: Pick<GatewayCatalog, 'planMeters'>,
  subject: Subject,
  requestId: string,
  worstCase: WorstCase,
): Promise<CallAdmission> {
  const meter = deps.leases && subject.enforce ? meterOf(planMeters, subject) : undefined;
  if (!deps.leases || !meter) {
    const checked = await checkQuota(deps.ledger, deps.logger, subject, requestId, worstCase.costMicros);
    if (checked.kind === 'unavailable') return { reservationId: '', quota: undefined };
    const refused = checked.allowed ? {} : { refusedFor: { retryAfterSeconds: checked.retryAfterSeconds } };
    return { reservationId: checked.reservationId, quota: checked.quota, ...refused };
  }
  const admission = await deps.leases.admit(subject, meter, meter === 'spend' ? worstCase.costMicros : 1n);
  switch (admission.kind) {
    case 'admitted':
      return { reservationId: '', quota: admission.quota, lease: { leaseId: admission.leaseId, meter, finish: admission.finish, renewed: admission.renewed } };
    case 'refused':
      return { reservationId: '', quota: admission.quota, refusedFor: { retryAfterSeconds: admission.retryAfterSeconds } };
    case 'unavailable':
      return { reservationId: '', quota: undefined };
  }
}

/** What a call used of its lease, as the ledger counts it: its cost on the spend meter (nothing when unpriced), one request on the others, nothing if the provider was not reached. */
export function leaseUsage(meter: MeterName, call: { consumed: boolean; priced: boolean; costMicros: bigint }): bigint {
  if (!call.consumed) return 0n;
  if (meter !== 'spend') return 1n;
  return call.priced ? call.costMicros : 0n;
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
