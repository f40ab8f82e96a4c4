import { DomainError } from '@gateway/lib/errors';
import { z } from 'zod';

/**
 * Upstream failures, mapped once into DomainError (docs/api.md):
 * - no answer in time (connect, headers, body or the whole call) -> `timeout` (504);
 * - refused, reset or closed connections, upstream 5xx and anything unexpected -> `provider` (502);
 * - upstream 429 -> `provider_rate_limit` (429, class provider) with the upstream's retry-after;
 * - upstream 400 / 422 -> `validation` with the upstream's message: the caller's request is at fault;
 * - upstream 401 / 403 -> `provider`: the key was refused (the gateway's, or the caller's own for BYOK).
 * No message carries the API key or the upstream URL; internalReason (logs only) names the
 * provider and its origin.
 */
export type KeyMode = 'managed' | 'byok';

export interface UpstreamContext {
  provider: string;
  origin: string;
  mode: KeyMode;
  apiKey: string;
}

const upstreamErrorSchema = z.looseObject({
  error: z.looseObject({
    message: z.string().optional(),
    type: z.string().nullish(),
    param: z.string().nullish(),
    code: z.union([z.string(), z.number()]).nullish(),
  }),
});

const MIN_MASKED_KEY_LENGTH = 8;
const MAX_REASON_LENGTH = 300;

/** Removes the key from text the upstream wrote (some echo a part of it back). */
function withoutKey(text: string, apiKey: string): string {
  return apiKey.length >= MIN_MASKED_KEY_LENGTH ? text.replaceAll(apiKey, '[REDACTED]') : text;
}

function upstreamError(bodyText: string): z.infer<typeof upstreamErrorSchema>['error'] | undefined {
  try {
    const parsed = upstreamErrorSchema.safeParse(JSON.parse(bodyText));
    return parsed.success ? parsed.data.error : undefined;
  } catch {
    return undefined;
  }
}

type HeaderValue = string | string[] | undefined;

function firstHeader(value: HeaderValue): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Seconds from `retry-after` (seconds or an HTTP date), else `retry-after-ms`. */
export function retryAfterSeconds(headers: Readonly<Record<string, HeaderValue>>, now = Date.now()): number | undefined {
  const value = firstHeader(headers['retry-after'])?.trim();
  if (value) {
    if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value));
    const date = Date.parse(value);
    if (!Number.isNaN(date)) return Math.max(0, Math.ceil((date - now) / 1000));
  }
  const milliseconds = firstHeader(headers['retry-after-ms'])?.trim();
  if (milliseconds && /^\d+(\.\d+)?$/.test(milliseconds)) return Math.ceil(Number(milliseconds) / 1000);
  return undefined;
}

/** A non-2xx answer from the upstream. */
export function upstreamStatusError(
  status: number,
  headers: Readonly<Record<string, HeaderValue>>,
  bodyText: string,
  context: UpstreamContext,
): DomainError {
  const detail = upstreamError(bodyText);
  const upstreamMessage = detail?.message ? withoutKey(detail.message, context.apiKey) : undefined;
  const internalReason = `${context.provider} (${context.origin}) answered HTTP ${status}${
    detail?.code ? ` ${String(detail.code)}` : ''
  }: ${(upstreamMessage ?? withoutKey(bodyText, context.apiKey)).slice(0, MAX_REASON_LENGTH)}`;

  if (status === 400 || status === 422) {
    return new DomainError('validation', upstreamMessage ?? 'The model provider rejected the request as invalid.', {
      internalReason,
      ...(detail?.param ? { field: detail.param } : {}),
    });
  }
  if (status === 413) return new DomainError('payload_too_large', 'The request is too large for the model provider.', { internalReason });
  if (status === 401 || status === 403) {
    const message =
      context.mode === 'byok' ? 'The model provider rejected your provider key.' : "The model provider rejected the gateway's credentials.";
    return new DomainError('provider', message, { internalReason });
  }
  if (status === 408) return new DomainError('timeout', 'The model provider timed out.', { internalReason });
  if (status === 429) {
    const retryAfter = retryAfterSeconds(headers);
    return new DomainError('provider_rate_limit', 'The model provider is rate limiting requests; retry later.', {
      internalReason,
      ...(retryAfter !== undefined ? { retryAfterSeconds: retryAfter } : {}),
    });
  }
  return new DomainError('provider', `The model provider failed (HTTP ${status}). Retry the request.`, { internalReason });
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

function duration(milliseconds: number): string {
  return milliseconds >= 1000 ? `${Math.round(milliseconds / 1000)} s` : `${milliseconds} ms`;
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}

/**
 * A failure of the exchange itself (no usable answer). `timedOut` says the
 * adapter's own deadline fired. The cause is kept for logs; undici errors do
 * not carry request headers, so it holds no key.
 */
export function transportError(error: unknown, context: UpstreamContext, timeoutMs: number, timedOut: boolean): DomainError {
  if (error instanceof DomainError) return error;
  const code = errorCode(error);
  const internalReason = `${context.provider} (${context.origin}): ${code ?? (error instanceof Error ? error.name : 'unknown error')}`;
  if (timedOut || (code !== undefined && TIMEOUT_CODES.has(code))) {
    return new DomainError('timeout', `The model provider did not answer in time (${duration(timeoutMs)}).`, {
      internalReason,
      cause: error,
    });
  }
  if (code !== undefined && UNREACHABLE_CODES.has(code)) {
    return new DomainError('provider', 'The model provider could not be reached. Retry the request.', { internalReason, cause: error });
  }
  return new DomainError('provider', 'The connection to the model provider failed. Retry the request.', { internalReason, cause: error });
}
