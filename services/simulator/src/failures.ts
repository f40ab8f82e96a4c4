import type { IncomingHttpHeaders } from 'node:http';
import { InvalidRequest } from './chat/request';

/**
 * Failure and latency injection for one chat request. Per request, through a
 * header (direct callers) or a directive inside the last user message (callers
 * behind a gateway, which forwards the messages but not arbitrary headers):
 *
 *   x-simulator-fail: 500 | 429 | <any status 400-599> | timeout | reset | midstream
 *   x-simulator-retry-after: <seconds>       (with a 429; default 2)
 *   x-simulator-latency-ms: <milliseconds>   (replaces LATENCY_MS and its jitter)
 *   "... [simulator fail=429 retry-after=5 latency-ms=200] ..."
 *
 * A header wins over the directive. Globally, FAILURE_RATE answers that fraction
 * of chat requests with a 500.
 */
export type Failure =
  | { kind: 'status'; status: number; retryAfterSeconds: number }
  | { kind: 'timeout' }
  | { kind: 'reset' }
  | { kind: 'midstream' };

export interface RequestPlan {
  latencyMs: number;
  failure: Failure | undefined;
}

export interface InjectionSettings {
  latencyMs: number;
  latencyJitterMs: number;
  failureRate: number;
  random: () => number;
}

const DEFAULT_RETRY_AFTER_SECONDS = 2;
const DIRECTIVE = /\[simulator\s+([^\]]*)\]/i;

type Knob = 'fail' | 'retry-after' | 'latency-ms';
const KNOBS: readonly Knob[] = ['fail', 'retry-after', 'latency-ms'];

function directiveValues(text: string): Partial<Record<Knob, string>> {
  if (!text.includes('[simulator')) return {};
  const match = DIRECTIVE.exec(text);
  if (!match?.[1]) return {};
  const values: Partial<Record<Knob, string>> = {};
  for (const pair of match[1].split(/[\s,]+/)) {
    const [key, value] = pair.split('=');
    if (value !== undefined && (KNOBS as readonly string[]).includes(key ?? '')) values[key as Knob] = value;
  }
  return values;
}

function headerValue(headers: IncomingHttpHeaders, knob: Knob): string | undefined {
  const value = headers[`x-simulator-${knob}`];
  return Array.isArray(value) ? value[0] : value;
}

function nonNegativeInt(value: string, knob: Knob): number {
  if (!/^\d+$/.test(value)) throw new InvalidRequest(`Invalid simulator ${knob} '${value}': expected a whole number.`, `x-simulator-${knob}`);
  return Number(value);
}

function parseFailure(value: string, retryAfter: string | undefined): Failure {
  if (value === 'timeout' || value === 'reset' || value === 'midstream') return { kind: value };
  const status = /^\d{3}$/.test(value) ? Number(value) : NaN;
  if (!(status >= 400 && status <= 599)) {
    throw new InvalidRequest(
      `Invalid simulator fail '${value}': expected an HTTP status 400-599, timeout, reset or midstream.`,
      'x-simulator-fail',
    );
  }
  const retryAfterSeconds = retryAfter === undefined ? DEFAULT_RETRY_AFTER_SECONDS : nonNegativeInt(retryAfter, 'retry-after');
  return { kind: 'status', status, retryAfterSeconds };
}

export function planRequest(headers: IncomingHttpHeaders, lastUserText: string, settings: InjectionSettings): RequestPlan {
  const directive = directiveValues(lastUserText);
  const pick = (knob: Knob) => headerValue(headers, knob) ?? directive[knob];

  const latency = pick('latency-ms');
  const latencyMs =
    latency !== undefined
      ? nonNegativeInt(latency, 'latency-ms')
      : settings.latencyMs + (settings.latencyJitterMs > 0 ? Math.floor(settings.random() * (settings.latencyJitterMs + 1)) : 0);

  const fail = pick('fail');
  if (fail !== undefined) return { latencyMs, failure: parseFailure(fail, pick('retry-after')) };
  if (settings.failureRate > 0 && settings.random() < settings.failureRate) {
    return { latencyMs, failure: { kind: 'status', status: 500, retryAfterSeconds: DEFAULT_RETRY_AFTER_SECONDS } };
  }
  return { latencyMs, failure: undefined };
}
