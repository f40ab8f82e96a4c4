import { SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import { toDomainError } from '@gateway/lib/errors';
import { formatUsd } from '@gateway/lib/money';
import type { CallCost, CompletionResult, ProviderClient, ProviderRequest, ProviderStream, StreamEvent } from './client';
import type { Upstream } from './upstreams';
import type { TokenUsage } from './usage';

/**
 * The model provider call as a span of the request's trace. Edge calls
 * providers through undici, which no registered instrumentation covers, so
 * without this the LLM call, the longest part of most requests, is missing
 * from the trace. The span follows OpenTelemetry's GenAI semantic
 * conventions (a CLIENT span named `chat <model>`, `gen_ai.*` attributes)
 * and carries what the call cost once it is priced. Prompts and answers are
 * never recorded, nor any key.
 */

/** Ends a call's span with its cost; a span whose cost never comes ends on its own after this long. */
const COST_WAIT_MS = 30_000;

const tracer = trace.getTracer('gateway.edge.provider');

/** The finished call's span, waiting for its cost; its end time is when the provider finished, not when it was priced. */
class PendingSpan {
  private ended = false;
  private readonly endTime = new Date();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly span: Span) {
    this.timer = setTimeout(() => this.end(), COST_WAIT_MS);
    this.timer.unref();
  }

  recordCost(cost: CallCost | undefined): void {
    if (this.ended) return;
    this.span.setAttribute('gateway.priced', cost?.priced ?? false);
    if (cost?.priced) this.span.setAttribute('gateway.cost_usd', formatUsd(cost.costMicros));
    this.end();
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.timer);
    this.span.end(this.endTime);
  }
}

function requestAttributes(request: ProviderRequest, upstream: Upstream | undefined, stream: boolean): Attributes {
  const body = request.body;
  const number = (value: unknown) => (typeof value === 'number' ? value : undefined);
  const attributes: Attributes = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': request.provider,
    // The older name of the same attribute, still the one several backends read.
    'gen_ai.system': request.provider,
    'gen_ai.request.model': typeof body.model === 'string' ? body.model : '',
    'gen_ai.request.max_tokens': number(body.max_completion_tokens) ?? number(body.max_tokens),
    'gen_ai.request.temperature': number(body.temperature),
    'gen_ai.request.top_p': number(body.top_p),
    'gateway.stream': stream,
    'gateway.key_mode': request.mode ?? 'managed',
  };
  if (upstream) {
    attributes['server.address'] = upstream.server.address;
    attributes['server.port'] = upstream.server.port;
  }
  return attributes;
}

function usageAttributes(usage: TokenUsage | undefined): Attributes {
  return usage ? { 'gen_ai.usage.input_tokens': usage.promptTokens, 'gen_ai.usage.output_tokens': usage.completionTokens } : {};
}

/** `model`, `id` and the finish reasons of an answer or of a stream's usage chunk. */
function responseAttributes(answer: unknown): Attributes {
  if (typeof answer !== 'object' || answer === null) return {};
  const { model, id, choices } = answer as { model?: unknown; id?: unknown; choices?: unknown };
  const reasons = Array.isArray(choices)
    ? choices.map((choice: unknown) => (choice as { finish_reason?: unknown } | null)?.finish_reason).filter((reason): reason is string => typeof reason === 'string')
    : [];
  return {
    ...(typeof model === 'string' ? { 'gen_ai.response.model': model } : {}),
    ...(typeof id === 'string' ? { 'gen_ai.response.id': id } : {}),
    ...(reasons.length > 0 ? { 'gen_ai.response.finish_reasons': reasons } : {}),
  };
}

function fail(span: Span, error: unknown): void {
  const domain = toDomainError(error);
  span.setAttribute('error.type', domain.errorClass);
  span.setStatus({ code: SpanStatusCode.ERROR, message: domain.message });
  span.end();
}

/** The stream as it was, observed: usage, the response model and finish reasons as they pass. */
class TracedStream implements ProviderStream {
  private readonly finishReasons = new Set<string>();
  private answer: Attributes = {};
  private pending: PendingSpan | undefined;
  private costWaiting: { cost: CallCost | undefined } | undefined;

  constructor(
    private readonly inner: ProviderStream,
    private readonly span: Span,
  ) {}

  get status(): number {
    return this.inner.status;
  }
  get clientRequestedUsage(): boolean {
    return this.inner.clientRequestedUsage;
  }
  get usage(): TokenUsage | undefined {
    return this.inner.usage;
  }

  cancel(): void {
    this.span.setAttribute('gateway.cancelled', true);
    this.inner.cancel();
  }

  recordCost(cost: CallCost | undefined): void {
    if (this.pending) this.pending.recordCost(cost);
    else this.costWaiting = { cost };
  }

  async *[Symbol.asyncIterator](): AsyncIterator<StreamEvent> {
    let failed = false;
    try {
      for await (const event of this.inner) {
        this.observe(event);
        yield event;
      }
    } catch (error) {
      failed = true;
      fail(this.span, error);
      throw error;
    } finally {
      // Also when the reader stops at [DONE]: the usage chunk came before it.
      if (!failed) this.finish();
    }
  }

  private finish(): void {
    if (!this.span.isRecording()) {
      this.span.end();
      return;
    }
    this.span.setAttributes({
      ...this.answer,
      ...(this.finishReasons.size > 0 ? { 'gen_ai.response.finish_reasons': [...this.finishReasons] } : {}),
      ...usageAttributes(this.inner.usage),
    });
    this.pending = new PendingSpan(this.span);
    if (this.costWaiting) this.pending.recordCost(this.costWaiting.cost);
  }

  private observe(event: StreamEvent): void {
    if (event.done || !this.span.isRecording()) return;
    // The usage chunk is parsed by the adapter anyway; it names the model and the completion id.
    if (event.usage) this.answer = responseAttributes(safeJson(event.data));
    const reason = /"finish_reason"\s*:\s*"([^"]+)"/.exec(event.data)?.[1];
    if (reason) this.finishReasons.add(reason);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Wraps the adapter: every call is a span of the current trace. A span no
 * one records (nothing exports traces, or the sampler left it out) gets no
 * attributes and waits for no cost: computing them was a few percent of
 * edge's CPU a call, for nothing.
 */
export function traceProviderCalls(client: ProviderClient, upstreams: ReadonlyMap<string, Upstream>): ProviderClient {
  const start = (request: ProviderRequest, stream: boolean) => {
    const span = tracer.startSpan(`chat ${String(request.body.model ?? '')}`, { kind: SpanKind.CLIENT });
    if (span.isRecording()) span.setAttributes(requestAttributes(request, upstreams.get(request.provider), stream));
    return span;
  };
  return {
    async complete(request) {
      const span = start(request, false);
      let result: CompletionResult;
      try {
        result = await client.complete(request);
      } catch (error) {
        fail(span, error);
        throw error;
      }
      if (!span.isRecording()) {
        span.end();
        return result;
      }
      // Set one after the other and merged with Object.assign, not spread into new objects: see gatewayHeaders (gateway/headers.ts).
      span.setAttributes(responseAttributes(result.json));
      span.setAttributes(usageAttributes(result.usage));
      const pending = new PendingSpan(span);
      return Object.assign({}, result, { recordCost: (cost: CallCost | undefined) => pending.recordCost(cost) });
    },
    async stream(request) {
      const span = start(request, true);
      try {
        return new TracedStream(await client.stream(request), span);
      } catch (error) {
        fail(span, error);
        throw error;
      }
    },
    useProviders: (providers) => client.useProviders(providers),
    close: () => client.close(),
  };
}
