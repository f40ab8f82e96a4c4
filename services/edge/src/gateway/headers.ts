import { formatUsd, type MicroUsd } from '@gateway/lib/money';
import { Meter, type QuotaState } from '@gateway/proto/gen/gateway/ledger/v1/ledger';

/**
 * Composes the `x-service-*` headers of docs/api.md#gateway-response-headers and #limits-and-allowances from what the request
 * learned on its way. Every header is present on every response; a value the
 * request never got to (an auth failure knows no model) is sent empty rather
 * than guessed. Money is printed from integer micro-dollars, 6 places;
 * an empty cost means unpriced, never free.
 */
export interface RouteFacts {
  model: string;
  tier: string;
  complexity: number;
  routed: boolean;
  droppedParams: readonly string[];
  /** The routing policy that made the decision; it goes on the trace. */
  routingPolicyVersion: string;
}

export interface PriceFacts {
  priced: boolean;
  costMicros: MicroUsd;
  baseline?: { model: string; reason: 'named' | 'plan_ceiling'; costMicros: MicroUsd };
  savingsMicros: MicroUsd;
  savingsEstimatePct: number;
  /** The price list the answer was priced with; it goes on the trace. */
  priceListVersion: string;
}

export interface HeaderFacts {
  requestId: string;
  principal?: string;
  mode?: 'managed' | 'byok';
  route?: RouteFacts;
  /** Undefined when pricing did not answer: unpriced. */
  price?: PriceFacts;
  /** Undefined when the ledger did not answer. */
  quota?: QuotaState;
  metered?: boolean;
}

const METER_NAMES: Partial<Record<Meter, string>> = {
  [Meter.METER_SPEND]: 'spend',
  [Meter.METER_REQUESTS]: 'requests',
  [Meter.METER_LEGACY]: 'legacy',
};

/**
 * Headers that a streamed response can only know at its end (everything the
 * price and the ledger record decide): sent as HTTP trailers, never as
 * placeholder headers before the first byte.
 */
export const TRAILER_HEADERS = [
  'x-service-cost-usd',
  'x-service-savings-usd',
  'x-service-savings-pct',
  'x-service-baseline-model',
  'x-service-baseline-reason',
  'x-service-baseline-usd',
  'x-service-priced',
  'x-service-metered',
] as const;

export function routeHeaders(facts: HeaderFacts): Record<string, string> {
  const { route } = facts;
  const headers: Record<string, string> = {
    'x-service-request-id': facts.requestId,
    'x-service-model': route?.model ?? '',
    'x-service-tier': route?.tier ?? '',
    'x-service-complexity': route ? String(route.complexity) : '',
    'x-service-routed': route ? String(route.routed) : '',
    'x-service-mode': facts.mode ?? '',
    'x-service-principal': facts.principal ?? '',
  };
  if (route && route.droppedParams.length > 0) headers['x-service-dropped-params'] = route.droppedParams.join(',');
  return Object.assign(headers, quotaHeaders(facts.quota));
}

export function outcomeHeaders(facts: HeaderFacts): Record<string, string> {
  const price = facts.price;
  const headers: Record<string, string> = {
    'x-service-cost-usd': price?.priced ? formatUsd(price.costMicros) : '',
    'x-service-savings-usd': price?.priced && price.baseline ? formatUsd(price.savingsMicros) : '',
    'x-service-savings-pct': price ? String(price.savingsEstimatePct) : '',
    'x-service-priced': String(price?.priced ?? false),
    'x-service-metered': String(facts.metered ?? false),
  };
  if (price?.baseline) {
    headers['x-service-baseline-model'] = price.baseline.model;
    headers['x-service-baseline-reason'] = price.baseline.reason;
    headers['x-service-baseline-usd'] = formatUsd(price.baseline.costMicros);
  }
  return headers;
}

/**
 * Every header of a finished (non-streamed) response. The sets are merged
 * with Object.assign, not spread: on Node 20's V8, an object made by spreading
 * one object and then given keys that object lacks survives the young
 * generation's collections, so every request's header set was promoted and
 * left to the full collections (docs/performance.md, "Spread, then new keys").
 */
export function gatewayHeaders(facts: HeaderFacts): Record<string, string> {
  return Object.assign(routeHeaders(facts), outcomeHeaders(facts));
}

/** Where the header set is written: an express (node http) response. */
export interface HeaderTarget {
  setHeader(name: string, value: string): unknown;
}

/**
 * Writes the header set. An answer gets it once, from what is known when it
 * is answered (its handler's answer or error, else the empty set of
 * gatewayErrorHeaders), so no earlier set is left to replace: a header that
 * no longer applies (the credits the quota check saw, used up by the time
 * the call is recorded) is never written in the first place.
 */
export function writeGatewayHeaders(res: HeaderTarget, headers: Record<string, string>): void {
  for (const name in headers) res.setHeader(name, headers[name] ?? '');
}

/**
 * The quota headers (docs/api.md#limits-and-allowances), plus what calls in flight hold (`-held`) where
 * the ledger counted it, as on a refusal: spent, held and remaining then say why.
 */
export function quotaHeaders(quota: QuotaState | undefined): Record<string, string> {
  const meter = quota ? METER_NAMES[quota.meter] : undefined;
  if (!quota || !meter) return { 'x-service-quota-meter': '' };
  const headers: Record<string, string> = { 'x-service-quota-meter': meter };
  if (quota.meter === Meter.METER_SPEND) {
    headers['x-service-quota-allowance-usd'] = formatUsd(BigInt(quota.allowanceMicros));
    headers['x-service-quota-spent-usd'] = formatUsd(BigInt(quota.spentMicros));
    headers['x-service-quota-remaining-usd'] = formatUsd(BigInt(quota.remainingMicros));
    if (quota.heldMicros !== undefined) headers['x-service-quota-held-usd'] = formatUsd(BigInt(quota.heldMicros));
  } else {
    headers['x-service-quota-limit'] = quota.limit;
    headers['x-service-quota-used'] = quota.used;
    headers['x-service-quota-remaining'] = quota.remaining;
    if (quota.hasCredits) headers['x-service-quota-credits'] = quota.credits;
    if (quota.held !== undefined) headers['x-service-quota-held'] = quota.held;
  }
  if (quota.resetsAt) headers['x-service-quota-resets'] = quota.resetsAt.toISOString();
  return headers;
}
