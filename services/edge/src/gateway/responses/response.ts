import { z } from 'zod';
import type { ServiceOutcome } from '../output';
import type { ResponsesRequest } from './schema';

/**
 * The Response object of the Responses API (the `openai` package's
 * `Response`), built from a chat completion: its one choice becomes a
 * message item (text and refusal) and a function_call item per tool call.
 * Ids derive from the request id (`resp_`, `msg_`, `fc_`), so a response is
 * found in the traces by its id. Nothing is stored: `store` is false.
 */
export type OutputText = { type: 'output_text'; text: string; annotations: never[]; logprobs: never[] };
export type Refusal = { type: 'refusal'; refusal: string };
export type ItemStatus = 'in_progress' | 'completed' | 'incomplete';

export interface MessageItem {
  type: 'message';
  id: string;
  role: 'assistant';
  status: ItemStatus;
  content: Array<OutputText | Refusal>;
}

export interface FunctionCallItem {
  type: 'function_call';
  id: string;
  call_id: string;
  name: string;
  arguments: string;
  status: ItemStatus;
}

export type OutputItem = MessageItem | FunctionCallItem;
export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

export interface ResponseUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export interface ResponseState {
  requestId: string;
  createdAt: number;
  model: string;
  status: ResponseStatus;
  output: OutputItem[];
  usage?: ResponseUsage | undefined;
  /** Why the answer stopped short (`finish_reason` length or content_filter). */
  incompleteReason?: 'max_output_tokens' | 'content_filter' | undefined;
  error?: { code: 'server_error'; message: string } | undefined;
  outcome?: ServiceOutcome | undefined;
}

export const responseId = (requestId: string) => `resp_${requestId}`;
export const messageId = (requestId: string) => `msg_${requestId}`;
export const functionCallId = (requestId: string, index: number) => `fc_${requestId}_${index}`;

export function outputText(text: string): OutputText {
  return { type: 'output_text', text, annotations: [], logprobs: [] };
}

/** The finish reason's answer status: `length` and `content_filter` are incomplete answers. */
export function completionStatus(finishReason: string | null | undefined): Pick<ResponseState, 'status' | 'incompleteReason'> {
  if (finishReason === 'length') return { status: 'incomplete', incompleteReason: 'max_output_tokens' };
  if (finishReason === 'content_filter') return { status: 'incomplete', incompleteReason: 'content_filter' };
  return { status: 'completed', incompleteReason: undefined };
}

const count = z.number().int().nonnegative();
const chatUsage = z.looseObject({
  prompt_tokens: count,
  completion_tokens: count,
  total_tokens: count.optional(),
  prompt_tokens_details: z.looseObject({ cached_tokens: count.nullish() }).nullish(),
  completion_tokens_details: z.looseObject({ reasoning_tokens: count.nullish() }).nullish(),
});

/** A chat completion's usage in the Responses shape; undefined when the upstream reported none. */
export function responseUsage(raw: unknown): ResponseUsage | undefined {
  const usage = chatUsage.safeParse(raw);
  if (!usage.success) return undefined;
  const { prompt_tokens: input, completion_tokens: output } = usage.data;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: usage.data.prompt_tokens_details?.cached_tokens ?? 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: usage.data.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: usage.data.total_tokens ?? input + output,
  };
}

/** The Response object: the request's settings echoed, the state's output, status and usage. */
export function responseBody(request: ResponsesRequest, state: ResponseState): Record<string, unknown> {
  return {
    id: responseId(state.requestId),
    object: 'response',
    created_at: state.createdAt,
    status: state.status,
    background: false,
    error: state.error ?? null,
    incomplete_details: state.incompleteReason ? { reason: state.incompleteReason } : null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    metadata: request.metadata ?? {},
    model: state.model,
    output: state.output,
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: { effort: request.reasoning?.effort ?? null, summary: request.reasoning?.summary ?? null },
    service_tier: request.service_tier ?? 'default',
    store: false,
    temperature: request.temperature ?? 1,
    text: { format: request.text?.format ?? { type: 'text' }, verbosity: request.text?.verbosity ?? 'medium' },
    tool_choice: request.tool_choice ?? 'auto',
    tools: (request.tools ?? []).map((tool) => ({ description: null, parameters: null, strict: null, ...tool })),
    top_p: request.top_p ?? 1,
    truncation: 'disabled',
    usage: state.usage ?? null,
    user: request.user ?? null,
    ...(state.outcome ? { x_service: state.outcome } : {}),
  };
}
