import { DomainError, toDomainError } from '@gateway/lib/errors';
import { durationHistogram } from '@gateway/lib/metrics';
import { Pool, type Dispatcher } from 'undici';
import { transportError, upstreamStatusError, type KeyMode, type UpstreamContext } from './errors';
import { SseDecoder } from './sse';
import { traceProviderCalls } from './tracing';
import { resolveUpstreams, type Upstream } from './upstreams';
import { readUsage, type TokenUsage } from './usage';

/**
 * The provider adapter: chat completions against any OpenAI-compatible
 * upstream, over one keep-alive undici Pool per upstream origin.
 */
export interface ProviderTimeouts {
  /** Establishing the TCP/TLS connection. */
  connectMs: number;
  /** The whole non-streaming call; for a stream, until its response headers arrive. */
  requestMs: number;
  /** The longest silence allowed between two pieces of a stream. */
  streamIdleMs: number;
}

export const DEFAULT_PROVIDER_TIMEOUTS: ProviderTimeouts = { connectMs: 10_000, requestMs: 60_000, streamIdleMs: 60_000 };

export interface ProviderClientOptions {
  /** The catalog's providers (name -> base URL). */
  providers: Readonly<Record<string, { base_url: string }>>;
  /** Base URL overrides: PROVIDER_BASE_URL_<PROVIDER> and UPSTREAM_BASE_URL (see upstreams.ts). */
  env?: Readonly<Record<string, string | undefined>>;
  timeouts?: Partial<ProviderTimeouts>;
  /** Most connections kept open to one origin. */
  connectionsPerOrigin?: number;
}

export interface ProviderRequest {
  provider: string;
  /** The managed key, or the caller's own provider key for BYOK (decrypted in memory only). */
  apiKey: string;
  /** Whose key it is; only changes the message when the provider refuses it. Default `managed`. */
  mode?: KeyMode;
  /** The chat-completions body to send, as the router left it. */
  body: Readonly<Record<string, unknown>>;
  /** Aborting it (the client went away) rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** What a call cost, once the gateway has priced it; goes on the call's span (provider/tracing.ts). */
export interface CallCost {
  priced: boolean;
  costMicros: bigint;
}

export interface CompletionResult {
  status: number;
  json: Record<string, unknown>;
  /** The body exactly as the provider sent it (the JSON text of `json`). */
  text: string;
  /** Undefined when the upstream reported none (the request is then unpriced). */
  usage: TokenUsage | undefined;
  /** Ends the call's span with what it cost, once priced. */
  recordCost?(cost: CallCost | undefined): void;
}

export interface StreamEvent {
  /** The `data:` payload exactly as the upstream sent it: a JSON chunk, or `[DONE]`. */
  data: string;
  /** This is the `[DONE]` marker. */
  done: boolean;
  /** Token usage this chunk carries, if any. */
  usage: TokenUsage | undefined;
  /** A choice ends in this chunk (it carries a `finish_reason`). */
  finishes: boolean;
  /**
   * False only for a usage-only chunk (no choices) the client did not ask for:
   * the adapter always asks the upstream for usage so that streams are priced,
   * and the client must not see an answer shape it did not request.
   */
  forward: boolean;
}

export interface ProviderStream extends AsyncIterable<StreamEvent> {
  status: number;
  /** The client itself set stream_options.include_usage. */
  clientRequestedUsage: boolean;
  /** The usage the upstream reported; known once iteration has ended. */
  readonly usage: TokenUsage | undefined;
  /** Stops reading and frees the connection (the client went away); iteration ends quietly. */
  cancel(): void;
  /** Ends the call's span with what it cost, once priced (after the stream has ended). */
  recordCost?(cost: CallCost | undefined): void;
}

export interface ProviderClient {
  /** A non-streaming completion (any `stream` field in the body is removed). */
  complete(request: ProviderRequest): Promise<CompletionResult>;
  /** A streamed completion; resolves once the upstream accepted it (status 2xx and headers). */
  stream(request: ProviderRequest): Promise<ProviderStream>;
  /**
   * Follows a changed catalog: calls from now on go where its providers say. A
   * pool no provider uses any more closes once its calls in flight are done.
   * Throws (changing nothing) when a base URL is invalid.
   */
  useProviders(providers: ProviderClientOptions['providers']): void;
  /** Closes every pool once the calls in flight are done. */
  close(): Promise<void>;
}

const KEEP_ALIVE_TIMEOUT_MS = 10_000;
const KEEP_ALIVE_MAX_TIMEOUT_MS = 60_000;
const DEFAULT_CONNECTIONS_PER_ORIGIN = 128;
const CARRIES_USAGE = /"usage"\s*:\s*\{/;
const CARRIES_FINISH = /"finish_reason"\s*:\s*"/;

type Body = Dispatcher.ResponseData['body'];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function requestHeaders(apiKey: string, accept: string): Record<string, string> {
  return { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', accept };
}

/** The adapter's own deadline for a whole call, tied to the caller's signal. */
class Deadline {
  readonly signal: AbortSignal;
  timedOut = false;
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly onCallerAbort: () => void;

  constructor(
    milliseconds: number,
    private readonly caller: AbortSignal | undefined,
  ) {
    this.signal = this.controller.signal;
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort(new Error('provider deadline passed'));
    }, milliseconds);
    this.onCallerAbort = () => this.controller.abort(caller?.reason);
    if (caller?.aborted) this.onCallerAbort();
    else caller?.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.caller?.removeEventListener('abort', this.onCallerAbort);
  }
}

/** A caller's abort surfaces as its own reason; everything else as a DomainError. */
function failure(error: unknown, signal: AbortSignal | undefined, context: UpstreamContext, timeoutMs: number, timedOut: boolean): unknown {
  if (!timedOut && signal?.aborted) return signal.reason;
  return transportError(error, context, timeoutMs, timedOut);
}

async function readText(body: Body): Promise<string> {
  try {
    return await body.text();
  } catch {
    return '';
  }
}

class UpstreamStream implements ProviderStream {
  usage: TokenUsage | undefined;
  private cancelled = false;
  private finished = false;

  constructor(
    readonly status: number,
    readonly clientRequestedUsage: boolean,
    private readonly body: Body,
    private readonly fail: (error: unknown) => unknown,
  ) {}

  cancel(): void {
    this.cancelled = true;
    this.body.destroy();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<StreamEvent> {
    const decoder = new SseDecoder();
    this.body.setEncoding('utf8');
    try {
      for await (const text of this.body as AsyncIterable<string>) {
        for (const data of decoder.push(text)) yield this.event(data);
      }
      for (const data of decoder.end()) yield this.event(data);
      this.requireFinish();
    } catch (error) {
      if (this.cancelled) return;
      throw this.fail(error);
    } finally {
      if (!this.body.destroyed) this.body.destroy();
    }
  }

  /**
   * An answer whose stream ends before any choice finished was cut short,
   * however cleanly the connection closed: it is a provider failure, not an answer.
   */
  private requireFinish(): void {
    if (this.finished) return;
    throw new DomainError('provider', 'The model provider ended the stream before the answer finished. Retry the request.', {
      internalReason: 'upstream stream ended without a finish_reason',
    });
  }

  private event(data: string): StreamEvent {
    if (data === '[DONE]') {
      this.requireFinish();
      return { data, done: true, usage: undefined, finishes: false, forward: true };
    }
    const finishes = CARRIES_FINISH.test(data);
    if (finishes) this.finished = true;
    if (!CARRIES_USAGE.test(data)) return { data, done: false, usage: undefined, finishes, forward: true };
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      return { data, done: false, usage: undefined, finishes, forward: true };
    }
    const usage = isRecord(chunk) ? readUsage(chunk.usage) : undefined;
    if (usage) this.usage = usage;
    const hasChoices = isRecord(chunk) && Array.isArray(chunk.choices) && chunk.choices.length > 0;
    return { data, done: false, usage, finishes, forward: this.clientRequestedUsage || hasChoices || usage === undefined };
  }
}

/** The adapter, every call of which is a span of the request's trace (provider/tracing.ts). */
export function createProviderClient(options: ProviderClientOptions): ProviderClient {
  const timeouts: ProviderTimeouts = { ...DEFAULT_PROVIDER_TIMEOUTS, ...options.timeouts };
  // Changed in place by useProviders: the tracing wrapper reads the same map.
  const upstreams = resolveUpstreams(options.providers, options.env);
  const pools = new Map<string, Pool>();
  const openPools = () => {
    for (const { origin } of upstreams.values()) {
      if (pools.has(origin)) continue;
      pools.set(
        origin,
        new Pool(origin, {
          connections: options.connectionsPerOrigin ?? DEFAULT_CONNECTIONS_PER_ORIGIN,
          pipelining: 1,
          keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
          keepAliveMaxTimeout: KEEP_ALIVE_MAX_TIMEOUT_MS,
          connect: { timeout: timeouts.connectMs },
        }),
      );
    }
  };
  openPools();

  // Whole answers are timed to their last byte, streams to their response headers.
  const durations = durationHistogram('edge.provider.duration', 'Time for a model provider to answer (a stream: to its response headers), by provider, mode and error class.');
  const observe = (context: UpstreamContext, stream: boolean, startedMs: number, error?: unknown) =>
    durations.record(performance.now() - startedMs, {
      provider: context.provider,
      mode: context.mode,
      stream,
      ...(error === undefined ? {} : { 'error.type': toDomainError(error).errorClass }),
    });

  const route = (request: ProviderRequest): { upstream: Upstream; pool: Pool; context: UpstreamContext } => {
    const upstream = upstreams.get(request.provider);
    const pool = upstream && pools.get(upstream.origin);
    if (!upstream || !pool) throw new DomainError('internal', `No upstream is configured for provider ${request.provider}.`);
    return { upstream, pool, context: { provider: upstream.provider, origin: upstream.origin, mode: request.mode ?? 'managed', apiKey: request.apiKey } };
  };

  const untraced: ProviderClient = {
    async complete(request) {
      const { upstream, pool, context } = route(request);
      const body: Record<string, unknown> = { ...request.body };
      delete body.stream;
      delete body.stream_options;
      const deadline = new Deadline(timeouts.requestMs, request.signal);
      const started = performance.now();
      try {
        const response = await pool.request({
          path: upstream.chatCompletionsPath,
          method: 'POST',
          headers: requestHeaders(request.apiKey, 'application/json'),
          body: JSON.stringify(body),
          signal: deadline.signal,
          headersTimeout: timeouts.requestMs,
          bodyTimeout: timeouts.requestMs,
        });
        const text = await response.body.text();
        if (response.statusCode < 200 || response.statusCode >= 300) throw upstreamStatusError(response.statusCode, response.headers, text, context);
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        if (!isRecord(json)) {
          throw new DomainError('provider', 'The model provider sent an invalid answer. Retry the request.', {
            internalReason: `${context.provider} (${context.origin}) answered HTTP ${response.statusCode} with a body that is not a JSON object`,
          });
        }
        observe(context, false, started);
        return { status: response.statusCode, json, text, usage: readUsage(json.usage) };
      } catch (error) {
        const failed = failure(error, request.signal, context, timeouts.requestMs, deadline.timedOut);
        observe(context, false, started, failed);
        throw failed;
      } finally {
        deadline.dispose();
      }
    },

    async stream(request) {
      const { upstream, pool, context } = route(request);
      const clientOptions = isRecord(request.body.stream_options) ? request.body.stream_options : undefined;
      const body = { ...request.body, stream: true, stream_options: { ...clientOptions, include_usage: true } };
      let response: Dispatcher.ResponseData;
      const started = performance.now();
      try {
        response = await pool.request({
          path: upstream.chatCompletionsPath,
          method: 'POST',
          headers: requestHeaders(request.apiKey, 'text/event-stream'),
          body: JSON.stringify(body),
          signal: request.signal ?? null,
          headersTimeout: timeouts.requestMs,
          bodyTimeout: timeouts.streamIdleMs,
        });
      } catch (error) {
        const failed = failure(error, request.signal, context, timeouts.requestMs, false);
        observe(context, true, started, failed);
        throw failed;
      }
      if (response.statusCode < 200 || response.statusCode >= 300) {
        const failed = upstreamStatusError(response.statusCode, response.headers, await readText(response.body), context);
        observe(context, true, started, failed);
        throw failed;
      }
      observe(context, true, started);
      return new UpstreamStream(response.statusCode, clientOptions?.include_usage === true, response.body, (error) =>
        failure(error, request.signal, context, timeouts.streamIdleMs, false),
      );
    },

    useProviders(providers) {
      const next = resolveUpstreams(providers, options.env);
      upstreams.clear();
      for (const [provider, upstream] of next) upstreams.set(provider, upstream);
      openPools();
      const inUse = new Set([...next.values()].map(({ origin }) => origin));
      for (const [origin, pool] of pools) {
        if (inUse.has(origin)) continue;
        pools.delete(origin);
        // A call takes its pool and starts its request in one step (route, then pool.request), so none starts on a closed pool.
        void pool.close();
      }
    },

    async close() {
      await Promise.all([...pools.values()].map((pool) => pool.close()));
    },
  };
  return traceProviderCalls(untraced, upstreams);
}
