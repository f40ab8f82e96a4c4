import { randomUUID } from 'node:crypto';
import { lastUserMessage, messageText, type ChatRequest } from './request';
import { answerText, applyStop } from './text';
import { countPromptTokens, countTextTokens, countToolCallTokens, truncateToTokens } from './tokens';
import { exampleValue } from './json-value';
import { chooseToolCalls, toolArguments } from './tools';

/** One answer, independent of how it goes on the wire (JSON body or SSE chunks). */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls';

export interface Choice {
  index: number;
  /** null when the choice is tool calls. */
  content: string | null;
  /** The content is JSON (a json_object or json_schema response format): streamed in pieces of characters, not words. */
  json: boolean;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface Completion {
  id: string;
  created: number;
  model: string;
  choices: Choice[];
  usage: Usage;
}

interface TextAnswer {
  content: string;
  tokens: number;
  finishReason: FinishReason;
}

/**
 * The full answer before any cut: prose, or JSON when the response format asks
 * for it: for `json_object` an object holding the prose, for `json_schema` a
 * value valid under the schema (varied by the prompt, the seed and the choice).
 */
function fullAnswer(request: ChatRequest, prompt: string, choiceIndex: number): string {
  const seed = request.seed ?? undefined;
  const format = request.response_format;
  if (format?.type === 'json_schema') {
    const schema = format.json_schema.schema ?? { type: 'object', properties: {} };
    return JSON.stringify(exampleValue(schema, format.json_schema.name, `${request.model}\u0000${seed ?? ''}\u0000${choiceIndex}\u0000${prompt}`));
  }
  const text = answerText({ model: request.model, prompt, seed, choiceIndex });
  return format?.type === 'json_object' ? JSON.stringify({ answer: text }) : text;
}

/**
 * The text for one choice: stop sequences cut it first, then max_completion_tokens
 * (or the older max_tokens) bounds it; a cut by the token bound ends with `length`
 * (a JSON answer cut that way is incomplete JSON, as with a real provider).
 */
function textAnswer(request: ChatRequest, prompt: string, choiceIndex: number): TextAnswer {
  const full = fullAnswer(request, prompt, choiceIndex);
  const { text } = applyStop(full, request.stop);
  const limit = request.max_completion_tokens ?? request.max_tokens ?? undefined;
  const tokens = countTextTokens(text);
  if (limit === undefined || tokens <= limit) return { content: text, tokens, finishReason: 'stop' };
  const truncated = truncateToTokens(text, limit);
  return { content: truncated.text, tokens: truncated.tokens, finishReason: 'length' };
}

export function buildCompletion(request: ChatRequest): Completion {
  const nonce = randomUUID().replaceAll('-', '');
  const lastUser = lastUserMessage(request);
  const prompt = lastUser ? messageText(lastUser) : '';
  const tools = chooseToolCalls(request);
  const choices: Choice[] = [];
  let completionTokens = 0;
  for (let index = 0; index < (request.n ?? 1); index += 1) {
    if (tools.length > 0) {
      const toolCalls = tools.map((tool, call) => ({
        id: `call_${nonce.slice(0, 20)}${index}${call}`,
        name: tool.function.name,
        arguments: toolArguments(tool),
      }));
      for (const call of toolCalls) completionTokens += countToolCallTokens(call.name, call.arguments);
      choices.push({ index, content: null, json: false, toolCalls, finishReason: 'tool_calls' });
    } else {
      const answer = textAnswer(request, prompt, index);
      completionTokens += answer.tokens;
      const json = request.response_format !== undefined && request.response_format.type !== 'text';
      choices.push({ index, content: answer.content, json, toolCalls: [], finishReason: answer.finishReason });
    }
  }
  const promptTokens = countPromptTokens(request);
  return {
    id: `chatcmpl-${nonce}`,
    created: Math.floor(Date.now() / 1000),
    model: request.model,
    choices,
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
  };
}
