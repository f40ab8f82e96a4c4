import { DomainError } from '@gateway/lib/errors';
import { parseInput } from '../../http/validation';
import { parseChatCompletionBody, type ChatCompletionBody } from '../request';
import { responsesRequestBody, unsupportedFeature, type ResponsesInputItem, type ResponsesInputPart, type ResponsesRequest } from './schema';

/**
 * A Responses API request as the chat-completions body the pipeline runs:
 * `instructions` become a leading system message, input items become
 * messages (consecutive function calls join one assistant turn, their
 * outputs become tool messages), function tools and `tool_choice` take the
 * chat shape, `max_output_tokens` is `max_completion_tokens`, `text.format`
 * is `response_format`, and the sampling and attribution fields keep their
 * names. The result goes through the chat-completions schema too, so both
 * routes accept and refuse the same conversations.
 */
export function readResponsesRequest(raw: unknown): { request: ResponsesRequest; body: ChatCompletionBody } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new DomainError('validation', 'Invalid request: the request body must be a JSON object with "model" and "input".', { field: 'body' });
  }
  const unsupported = unsupportedFeature(raw as Record<string, unknown>);
  if (unsupported) throw new DomainError('validation', `Invalid request: body field "${unsupported.field}": ${unsupported.message}.`, { field: unsupported.field });
  const request = parseInput(responsesRequestBody, raw, 'body');
  return { request, body: parseChatCompletionBody(chatBodyOf(request)) };
}

type ChatMessage = Record<string, unknown>;
type ChatPart = Record<string, unknown>;

function refuse(field: string, message: string): never {
  throw new DomainError('validation', `Invalid request: body field "${field}" ${message}.`, { field });
}

function chatBodyOf(request: ResponsesRequest): Record<string, unknown> {
  const messages: ChatMessage[] = [];
  if (request.instructions) messages.push({ role: 'system', content: request.instructions });
  if (typeof request.input === 'string') messages.push({ role: 'user', content: request.input });
  else request.input.forEach((item, index) => appendItem(messages, item, `input[${index}]`));

  const format = request.text?.format;
  const body: Record<string, unknown> = {
    model: request.model,
    messages,
    ...(request.tools?.length
      ? {
          tools: request.tools.map((tool) => ({
            type: 'function',
            function: {
              name: tool.name,
              ...(tool.description != null ? { description: tool.description } : {}),
              ...(tool.parameters != null ? { parameters: tool.parameters } : {}),
              ...(tool.strict != null ? { strict: tool.strict } : {}),
            },
          })),
        }
      : {}),
    ...(request.tool_choice !== undefined
      ? { tool_choice: typeof request.tool_choice === 'string' ? request.tool_choice : { type: 'function', function: { name: request.tool_choice.name } } }
      : {}),
    ...(format && format.type !== 'text' ? { response_format: format.type === 'json_object' ? format : { type: 'json_schema', json_schema: jsonSchemaOf(format) } } : {}),
    ...(request.reasoning?.effort != null ? { reasoning_effort: request.reasoning.effort } : {}),
    ...(request.text?.verbosity != null ? { verbosity: request.text.verbosity } : {}),
    ...(request.max_output_tokens != null ? { max_completion_tokens: request.max_output_tokens } : {}),
    ...(request.stream ? { stream: true } : {}),
  };
  for (const name of ['parallel_tool_calls', 'temperature', 'top_p', 'metadata', 'user', 'safety_identifier', 'prompt_cache_key', 'service_tier'] as const) {
    if (request[name] != null) body[name] = request[name];
  }
  return body;
}

function jsonSchemaOf(format: { name: string; schema: Record<string, unknown>; description?: string | undefined; strict?: boolean | null | undefined }) {
  return {
    name: format.name,
    schema: format.schema,
    ...(format.description !== undefined ? { description: format.description } : {}),
    ...(format.strict != null ? { strict: format.strict } : {}),
  };
}

function appendItem(messages: ChatMessage[], item: ResponsesInputItem, field: string): void {
  switch (item.type) {
    case 'message':
      if (item.role === 'assistant') {
        messages.push(assistantMessageOf(item.content, `${field}.content`));
        return;
      }
      messages.push({ role: item.role, content: typeof item.content === 'string' ? item.content : partsOf(item.content, `${field}.content`, item.role === 'user') });
      return;
    case 'function_call': {
      const call = { id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } };
      // Calls made in one turn (text first, or calls in parallel) are one assistant message with several tool_calls.
      const previous = messages.at(-1);
      if (previous?.role === 'assistant') {
        previous.tool_calls = [...((previous.tool_calls as unknown[] | undefined) ?? []), call];
      } else {
        messages.push({ role: 'assistant', content: null, tool_calls: [call] });
      }
      return;
    }
    case 'function_call_output':
      messages.push({
        role: 'tool',
        tool_call_id: item.call_id,
        content: typeof item.output === 'string' ? item.output : partsOf(item.output, `${field}.output`, false),
      });
      return;
  }
}

/** An earlier answer of the model: its text, and a refusal if it refused. */
function assistantMessageOf(content: string | Array<{ type: string; text?: string; refusal?: string }>, field: string): ChatMessage {
  if (typeof content === 'string') return { role: 'assistant', content };
  const text = content.flatMap((part) => (part.type === 'refusal' ? [] : [part.text ?? ''])).join('');
  const refusal = content.flatMap((part) => (part.type === 'refusal' ? [part.refusal ?? ''] : [])).join('');
  if (content.length === 0) refuse(field, 'must not be an empty array');
  return { role: 'assistant', content: text === '' && refusal !== '' ? null : text, ...(refusal !== '' ? { refusal } : {}) };
}

/** Input parts as chat content parts; only user messages may carry images and files in chat completions. */
function partsOf(parts: ResponsesInputPart[], field: string, media: boolean): ChatPart[] {
  return parts.map((part, index) => {
    const at = `${field}[${index}]`;
    if (part.type === 'input_text') return { type: 'text', text: part.text };
    if (!media) refuse(`${at}.type`, 'must be input_text: only user messages may carry images and files');
    if (part.type === 'input_image') {
      if (!part.image_url) refuse(`${at}.image_url`, 'is required: images are sent by URL or data URL (file ids are not supported)');
      const detail = part.detail === 'original' ? 'high' : part.detail;
      return { type: 'image_url', image_url: { url: part.image_url, ...(detail ? { detail } : {}) } };
    }
    if (part.file_url !== undefined) refuse(`${at}.file_url`, 'is not supported: send the file as file_data (a data URL) or file_id');
    return {
      type: 'file',
      file: {
        ...(part.file_data !== undefined ? { file_data: part.file_data } : {}),
        ...(part.file_id != null ? { file_id: part.file_id } : {}),
        ...(part.filename !== undefined ? { filename: part.filename } : {}),
      },
    };
  });
}
