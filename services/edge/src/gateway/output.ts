import type { DomainError } from '@gateway/lib/errors';
import type { CompletionResult, StreamEvent } from '../provider';
import { outcomeHeaders, type HeaderFacts } from './headers';
import type { ChatCompletionBody } from './request';

/**
 * The seam between the gateway's one pipeline (authenticate, route, admit,
 * provider, price, record) and the wire format a caller speaks. The pipeline
 * runs a chat-completions body and hands what the provider answered to the
 * endpoint's writer; chat completions pass it through, the Responses API
 * translates it. Headers, trailers, status and metering stay the pipeline's.
 */
export interface GatewayEndpoint {
  /** Reads the HTTP body: the chat-completions body to run, and how its answer goes out. Throws `validation`. */
  accept(raw: unknown): AcceptedCall;
}

export interface AcceptedCall {
  body: ChatCompletionBody;
  writer: AnswerWriter;
}

export interface AnswerWriter {
  /** The JSON body of a finished, non-streamed answer (sent as `application/json`). */
  json(answer: CompletionResult, facts: HeaderFacts): string;
  /** A streamed answer, written as server-sent events to `sink`. */
  stream(sink: SseSink): StreamWriter;
}

/** Where server-sent event frames go: the response, already open. */
export interface SseSink {
  /** One `data:` event; `event` names it (the Responses API's typed events). */
  send(data: string, event?: string): void;
}

export interface StreamWriter {
  /** The stream is open (headers sent): what goes before the first upstream chunk. */
  open(facts: HeaderFacts): void;
  /** One upstream event, `[DONE]` excluded, in order. */
  chunk(event: StreamEvent): void;
  /** The call is priced and recorded: the last events, carrying the outcome; `failure` when the upstream broke off. */
  close(ending: StreamEnding): void;
}

export interface StreamEnding {
  outcome: ServiceOutcome;
  failure: DomainError | undefined;
}

/** The `x_service` object: what the trailers say, for clients that cannot read trailers (docs/api.md). */
export interface ServiceOutcome {
  request_id: string;
  cost_usd: string;
  savings_usd: string;
  baseline_usd: string | null;
  baseline_model: string | null;
  baseline_reason: string | null;
  savings_pct: string;
  priced: boolean;
  metered: boolean;
}

export function serviceOutcome(facts: HeaderFacts): ServiceOutcome {
  const outcome = outcomeHeaders(facts);
  return {
    request_id: facts.requestId,
    cost_usd: outcome['x-service-cost-usd'] ?? '',
    savings_usd: outcome['x-service-savings-usd'] ?? '',
    baseline_usd: outcome['x-service-baseline-usd'] ?? null,
    baseline_model: outcome['x-service-baseline-model'] ?? null,
    baseline_reason: outcome['x-service-baseline-reason'] ?? null,
    savings_pct: outcome['x-service-savings-pct'] ?? '',
    priced: facts.price?.priced ?? false,
    metered: facts.metered ?? false,
  };
}

/** Server-sent event frames on a node response. */
export function sseSink(res: { write(chunk: string): unknown }): SseSink {
  return {
    send: (data, event) => {
      res.write(event ? `event: ${event}\ndata: ${data}\n\n` : `data: ${data}\n\n`);
    },
  };
}
