import { TRAILER_HEADERS } from '../gateway/headers';

/**
 * The `x-service-*` response headers of the gateway routes, as the reference
 * describes them. Which ones a response carries is decided by
 * gateway/headers.ts; a streamed response sends the ones in TRAILER_HEADERS
 * as HTTP trailers and in its final chunk instead.
 */
export const GATEWAY_HEADER_DESCRIPTIONS: Record<string, string> = {
  'x-service-request-id': 'The request id; equal to `error.request_id` in an error body. Quote it when reporting a problem.',
  'x-service-model': 'The model that served the call (after routing).',
  'x-service-tier': 'The served model\'s tier (e.g. `economy`, `standard`, `premium`).',
  'x-service-complexity': 'The router\'s complexity score of the prompt, 0–100.',
  'x-service-routed': '`true` when the router chose the model (`model: "auto"`), `false` when the caller named it.',
  'x-service-mode': '`managed` (the gateway\'s provider keys, metered) or `byok` (the agent\'s own provider key).',
  'x-service-principal': 'Who was charged: `org:<id>` or `agent:<id>`.',
  'x-service-dropped-params': 'Request fields the served model does not accept, dropped before the call (comma-separated). Absent when none were.',
  'x-service-quota-meter': 'The allowance the call counted on: `spend`, `requests` or `legacy`; empty when the ledger did not answer.',
  'x-service-quota-allowance-usd': 'Spend meter: the month\'s allowance, decimal USD with 6 places.',
  'x-service-quota-spent-usd': 'Spend meter: spent this month, decimal USD.',
  'x-service-quota-remaining-usd': 'Spend meter: what is left this month, decimal USD.',
  'x-service-quota-limit': 'Request meters: the month\'s request limit.',
  'x-service-quota-used': 'Request meters: requests counted this month.',
  'x-service-quota-remaining': 'Request meters: requests left this month.',
  'x-service-quota-credits': 'Request meters: purchased credits left, when the organization has any.',
  'x-service-quota-resets': 'When the allowance resets: the start of the next UTC month (ISO-8601).',
  'x-service-cost-usd': 'What the call cost, decimal USD with 6 places; empty when it could not be priced (never read empty as free).',
  'x-service-savings-usd':
    'Measured: the baseline\'s cost for the same tokens minus the cost, decimal USD. Empty when there is no baseline; 0.000000 when the served model is the baseline.',
  'x-service-savings-pct':
    'Estimated, before the call: how much cheaper the routed tier\'s price is than the baseline\'s, in percent. It compares list prices, not this call\'s tokens, so it can read 90 while x-service-savings-usd reads 0.000000 (served by the baseline, or a call too small to differ at 6 places).',
  'x-service-baseline-model': 'The model the savings are measured against: the one named in the request, or the plan\'s ceiling model.',
  'x-service-baseline-reason': '`named` (the caller named a model) or `plan_ceiling` (the plan\'s most capable model, for routed calls).',
  'x-service-baseline-usd': 'What the baseline model would have cost for the same tokens, decimal USD.',
  'x-service-priced': '`true` when the call was priced, `false` when the cost is unknown.',
  'x-service-metered': '`true` when the call was recorded against the allowance, `false` when the record did not land (it is retried).',
};

export const GATEWAY_HEADER_NAMES = Object.keys(GATEWAY_HEADER_DESCRIPTIONS);

/** The headers a streamed response carries as trailers and in its final chunk rather than up front. */
export const STREAMED_AT_END: readonly string[] = TRAILER_HEADERS;
