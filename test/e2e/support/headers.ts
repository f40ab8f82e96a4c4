import OpenAI from 'openai';
import { parseUsd } from '@gateway/lib/money';

/**
 * What a client can check on every gateway response (docs/api.md#gateway-response-headers and #limits-and-allowances). The
 * header names here are written out from docs/api.md, not imported from edge,
 * so that a renamed header fails the suites.
 */
const ALWAYS_PRESENT_HEADERS = [
  'x-service-request-id',
  'x-service-model',
  'x-service-tier',
  'x-service-complexity',
  'x-service-routed',
  'x-service-cost-usd',
  'x-service-savings-usd',
  'x-service-savings-pct',
  'x-service-priced',
  'x-service-metered',
  'x-service-mode',
  'x-service-principal',
  'x-service-quota-meter',
] as const;

const BASELINE_HEADERS = ['x-service-baseline-model', 'x-service-baseline-reason', 'x-service-baseline-usd'] as const;
const SPEND_HEADERS = ['x-service-quota-allowance-usd', 'x-service-quota-spent-usd', 'x-service-quota-remaining-usd', 'x-service-quota-held-usd'] as const;
const COUNT_HEADERS = ['x-service-quota-limit', 'x-service-quota-used', 'x-service-quota-remaining', 'x-service-quota-held'] as const;

/** What the price and the ledger record decide: known only at the end of a stream, so sent there as trailers (docs/api.md). */
export const STREAM_TRAILER_HEADERS = [
  'x-service-cost-usd',
  'x-service-savings-usd',
  'x-service-savings-pct',
  ...BASELINE_HEADERS,
  'x-service-priced',
  'x-service-metered',
] as const;

const USD = /^-?\d+\.\d{6}$/;
const REQUEST_ID = /^[0-9a-f]{32}$/;

/** Anything with a case-insensitive `get`: fetch's Headers, the openai client's, or node's headers wrapped. */
export interface HeaderSource {
  get(name: string): string | null;
}

export function headersFrom(record: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(record)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return headers;
}

/** The first instant of the next calendar month in UTC: when every quota period resets. */
export function nextPeriodStart(now = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

/** A USD header as integer micro-dollars; the header must be set and not empty. */
export function usdHeader(headers: HeaderSource, name: string): bigint {
  const value = headers.get(name);
  if (value === null || value === '') throw new Error(`${name} is ${value === null ? 'absent' : 'empty'}`);
  return parseUsd(value);
}

function expectPresent(headers: HeaderSource, names: readonly string[]): void {
  const missing = names.filter((name) => headers.get(name) === null);
  expect({ missing }).toEqual({ missing: [] });
}

function expectAbsent(headers: HeaderSource, names: readonly string[]): void {
  const present = names.filter((name) => headers.get(name) !== null);
  expect({ unexpected: present }).toEqual({ unexpected: [] });
}

function expectOneOf(headers: HeaderSource, name: string, allowed: readonly string[]): string {
  const value = headers.get(name) ?? '';
  // The failure shows the header and its value.
  expect({ [name]: allowed.includes(value) ? 'allowed' : value }).toEqual({ [name]: 'allowed' });
  return value;
}

/**
 * The whole header set of docs/api.md#gateway-response-headers and #limits-and-allowances, on a success or an error, and its
 * internal consistency: money is USD with 6 places or empty, an empty cost is
 * exactly an unpriced request, the baseline headers come together, the quota
 * headers are those of the meter named, and remaining is what the meter says.
 */
export function expectHeaderSet(headers: HeaderSource): void {
  expectPresent(headers, ALWAYS_PRESENT_HEADERS);
  expect(headers.get('x-service-request-id')).toMatch(REQUEST_ID);

  const priced = expectOneOf(headers, 'x-service-priced', ['true', 'false']);
  expectOneOf(headers, 'x-service-metered', ['true', 'false']);
  expectOneOf(headers, 'x-service-routed', ['', 'true', 'false']);
  expectOneOf(headers, 'x-service-mode', ['', 'managed', 'byok']);
  expectOneOf(headers, 'x-service-principal', ['', 'api_key', 'gateway_token', 'agent_secret']);
  expect(headers.get('x-service-complexity')).toMatch(/^(|\d+)$/);
  expect(headers.get('x-service-savings-pct')).toMatch(/^(|\d+)$/);

  const cost = headers.get('x-service-cost-usd') ?? '';
  // Empty means unpriced, never free: priced and a cost go together.
  expect({ priced, cost }).toEqual(priced === 'true' ? { priced, cost: expect.stringMatching(USD) } : { priced, cost: '' });
  expect(headers.get('x-service-savings-usd')).toMatch(/^(|-?\d+\.\d{6})$/);
  // Sent only when something was dropped, and then it names it.
  expect(headers.get('x-service-dropped-params') ?? 'absent').toMatch(/^(absent|[a-z_]+(,[a-z_]+)*)$/);

  const baselinePresent = BASELINE_HEADERS.filter((name) => headers.get(name) !== null);
  expect({ baseline: baselinePresent }).toEqual({ baseline: baselinePresent.length === 0 ? [] : [...BASELINE_HEADERS] });
  if (baselinePresent.length > 0) {
    expectOneOf(headers, 'x-service-baseline-reason', ['named', 'plan_ceiling']);
    expect(headers.get('x-service-baseline-usd')).toMatch(USD);
    expect(headers.get('x-service-baseline-model')).not.toBe('');
  }

  expectQuotaHeaders(headers);
}

function expectQuotaHeaders(headers: HeaderSource): void {
  const meter = expectOneOf(headers, 'x-service-quota-meter', ['', 'spend', 'requests', 'legacy']);
  if (meter === '') {
    expectAbsent(headers, [...SPEND_HEADERS, ...COUNT_HEADERS, 'x-service-quota-credits']);
    return;
  }
  expect(headers.get('x-service-quota-resets')).toBe(nextPeriodStart().toISOString());
  if (meter === 'spend') {
    expectPresent(headers, SPEND_HEADERS);
    expectAbsent(headers, [...COUNT_HEADERS, 'x-service-quota-credits']);
    const allowance = usdHeader(headers, 'x-service-quota-allowance-usd');
    const spent = usdHeader(headers, 'x-service-quota-spent-usd');
    // What calls in flight hold is reported where the ledger counted it (a refusal), and is not left.
    const held = headers.get('x-service-quota-held-usd') === null ? 0n : usdHeader(headers, 'x-service-quota-held-usd');
    const remaining = allowance > spent + held ? allowance - spent - held : 0n;
    expect(usdHeader(headers, 'x-service-quota-remaining-usd')).toBe(remaining);
    return;
  }
  expectPresent(headers, COUNT_HEADERS);
  expectAbsent(headers, SPEND_HEADERS);
  const [limit, used, remaining] = COUNT_HEADERS.map((name) => BigInt(headers.get(name) ?? 'NaN'));
  const credits = BigInt(headers.get('x-service-quota-credits') ?? '0');
  const held = BigInt(headers.get('x-service-quota-held') ?? '0');
  const left = (limit ?? 0n) > (used ?? 0n) ? (limit ?? 0n) - (used ?? 0n) : 0n;
  // docs/api.md#limits-and-allowances: remaining includes purchased credits; what calls in flight hold is not left.
  expect(remaining).toBe(left + credits > held ? left + credits - held : 0n);
}

export interface GatewayErrorBody {
  message: string;
  type: string;
  code: number;
  request_id: string;
}

/**
 * A gateway error as the official client surfaces it: the status, the docs/api.md#errors
 * body, `request_id` equal to the header, and the whole header set.
 */
export function expectApiError(error: unknown, status: number, type: string): { body: GatewayErrorBody; headers: Headers } {
  expect(error).toBeInstanceOf(OpenAI.APIError);
  const apiError = error as InstanceType<typeof OpenAI.APIError>;
  expect({ status: apiError.status, type: apiError.type }).toEqual({ status, type });
  const headers = apiError.headers as Headers;
  const body = apiError.error as GatewayErrorBody;
  expect(body).toEqual({ message: expect.any(String), type, code: status, request_id: headers.get('x-service-request-id') });
  expectHeaderSet(headers);
  return { body, headers };
}

/** Runs a call that must fail, and returns what it threw. */
export async function failure(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (error) {
    return error;
  }
  throw new Error('the call succeeded; it was expected to fail');
}
