import { z } from 'zod';
import { DomainError } from '@gateway/lib/errors';
import { innermostIssue } from '../http/validation';
import { storableText } from '@gateway/lib/storable-text';

/**
 * The chat-completions body as the gateway checks it: every message shape
 * the Chat Completions API accepts (the `openai` package's
 * ChatCompletionMessageParam), each role with its own fields, so that a
 * malformed message is refused here with what was expected rather than by
 * the provider. Objects stay open: a field the API adds later passes through,
 * as do the further standard request fields (tools, response_format,
 * temperature, seed, ...), unless the served model would reject one (then it
 * is dropped and named in `x-service-dropped-params`).
 */
export const chatRoles = ['system', 'developer', 'user', 'assistant', 'tool', 'function'] as const;

const textPart = z.looseObject({ type: z.literal('text'), text: z.string() });
const imagePart = z.looseObject({
  type: z.literal('image_url'),
  image_url: z.looseObject({ url: z.string(), detail: z.enum(['auto', 'low', 'high']).optional() }),
});
const audioPart = z.looseObject({
  type: z.literal('input_audio'),
  input_audio: z.looseObject({ data: z.string(), format: z.enum(['wav', 'mp3']) }),
});
const filePart = z.looseObject({
  type: z.literal('file'),
  file: z.looseObject({ file_data: z.string().optional(), file_id: z.string().optional(), filename: z.string().optional() }),
});
const refusalPart = z.looseObject({ type: z.literal('refusal'), refusal: z.string() });

/** Content of one role: a string, or an array of the part types that role may send. */
function contentOf<const Parts extends readonly [z.ZodObject, ...z.ZodObject[]]>(parts: Parts, types: string) {
  const part = z.discriminatedUnion('type', parts, { error: () => `must be a content part of type ${types}` });
  return z.union([z.string(), z.array(part)], { error: () => `must be a string or an array of content parts (type ${types})` });
}

const textContent = contentOf([textPart], 'text');
const userContent = contentOf([textPart, imagePart, audioPart, filePart], 'text, image_url, input_audio, file');
const assistantContent = contentOf([textPart, refusalPart], 'text, refusal');

const toolCall = z.discriminatedUnion(
  'type',
  [
    z.looseObject({ id: z.string(), type: z.literal('function'), function: z.looseObject({ name: z.string(), arguments: z.string() }) }),
    z.looseObject({ id: z.string(), type: z.literal('custom'), custom: z.looseObject({ name: z.string(), input: z.string() }) }),
  ],
  { error: () => 'must be a tool call of type function or custom' },
);

const name = z.string().optional();
const message = z.discriminatedUnion(
  'role',
  [
    z.looseObject({ role: z.literal('system'), content: textContent, name }),
    z.looseObject({ role: z.literal('developer'), content: textContent, name }),
    z.looseObject({ role: z.literal('user'), content: userContent, name }),
    // An assistant turn that only calls tools has null or no content (Python's model_dump(exclude_none=True) drops the key).
    z.looseObject({
      role: z.literal('assistant'),
      content: assistantContent.nullish(),
      name,
      refusal: z.string().nullish(),
      tool_calls: z.array(toolCall).optional(),
      function_call: z.looseObject({ name: z.string(), arguments: z.string() }).nullish(),
      audio: z.looseObject({ id: z.string() }).nullish(),
    }),
    z.looseObject({ role: z.literal('tool'), content: textContent, tool_call_id: z.string() }),
    z.looseObject({ role: z.literal('function'), content: z.string().nullable(), name: z.string() }),
  ],
  { error: () => `expected one of ${chatRoles.join(', ')}` },
);

/** The router's request carries the bound as a protobuf int32. */
const INT32_MAX = 2_147_483_647;
export const outputTokenBound = z.number().int().positive().max(INT32_MAX, { error: `must be at most ${INT32_MAX}` });

export const chatCompletionBody = z.looseObject({
  model: storableText().min(1).max(200),
  messages: z.array(message).min(1),
  stream: z.boolean().optional(),
  tools: z.array(z.looseObject({ type: z.string() })).optional(),
  max_tokens: outputTokenBound.optional(),
  max_completion_tokens: outputTokenBound.optional(),
  n: z.number().int().min(1).max(16).optional(),
});

export type ChatCompletionBody = z.infer<typeof chatCompletionBody>;
export type ChatMessageInput = z.infer<typeof message>;

/** Turns the first zod issue into a validation error that names the field and what is allowed. */
export function parseChatCompletionBody(raw: unknown): ChatCompletionBody {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new DomainError('validation', 'The request body must be a JSON object with "model" and "messages".', { field: 'body' });
  }
  const result = chatCompletionBody.safeParse(raw);
  if (result.success) return result.data;
  const issue = result.error.issues[0] && innermostIssue(result.error.issues[0]);
  const field = issue?.path.length ? issue.path.join('.') : 'body';
  throw new DomainError('validation', describeIssue(field, issue), { field });
}

function describeIssue(field: string, issue: z.core.$ZodIssue | undefined): string {
  if (!issue) return `Invalid request body.`;
  if (issue.code === 'too_small' && field === 'messages') return 'Invalid messages: at least one message is required.';
  if (isMissing(issue)) return `Missing required field ${field}: ${issue.code === 'invalid_type' ? `expected ${issue.expected}` : issue.message}.`;
  if (issue.code === 'invalid_type') return `Invalid ${field}: expected ${issue.expected}.`;
  if (issue.code === 'invalid_value') return `Invalid ${field}: expected one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}.`;
  return `Invalid ${field}: ${issue.message}.`;
}

/** The field is absent: a type mismatch on `undefined`, or a union none of whose alternatives allows its absence. */
function isMissing(issue: z.core.$ZodIssue): boolean {
  if (issue.code === 'invalid_type') return issue.input === undefined;
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return false;
  return issue.errors.every((branch) => branch.length === 1 && branch[0] !== undefined && branch[0].path.length === 0 && isMissing(branch[0]));
}

/** Text of a message for scoring: string content, or the text parts of an array. */
export function messageText(content: ChatMessageInput['content']): string {
  if (typeof content === 'string') return content;
  if (!content) return '';
  return content
    .map((part) => (part.type === 'text' ? part.text : ''))
    .filter(Boolean)
    .join('\n');
}

export function maxOutputTokens(body: ChatCompletionBody): number {
  return body.max_completion_tokens ?? body.max_tokens ?? 0;
}
