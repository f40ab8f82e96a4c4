import { z } from 'zod';
import { DomainError } from '@gateway/lib/errors';

/**
 * The chat-completions body as the gateway checks it. Only what the gateway
 * itself relies on is typed strictly; every further standard field (tools,
 * response_format, temperature, seed, ...) passes through to the upstream
 * untouched, unless the served model would reject it (then it is dropped
 * and named in `x-service-dropped-params`).
 */
export const chatRoles = ['system', 'developer', 'user', 'assistant', 'tool', 'function'] as const;

const contentPart = z.looseObject({ type: z.string() });
const message = z.looseObject({
  role: z.enum(chatRoles),
  // Assistant turns that only call tools carry null content.
  content: z.union([z.string(), z.array(contentPart), z.null()]),
});

export const chatCompletionBody = z.looseObject({
  model: z.string().min(1).max(200),
  messages: z.array(message).min(1),
  stream: z.boolean().optional(),
  tools: z.array(z.looseObject({ type: z.string() })).optional(),
  max_tokens: z.number().int().positive().optional(),
  max_completion_tokens: z.number().int().positive().optional(),
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
  const issue = result.error.issues[0];
  const field = issue?.path.length ? issue.path.join('.') : 'body';
  throw new DomainError('validation', describeIssue(field, issue), { field });
}

function describeIssue(field: string, issue: z.core.$ZodIssue | undefined): string {
  if (!issue) return `Invalid request body.`;
  if (issue.code === 'invalid_value' && field.endsWith('role')) {
    return `Invalid ${field}: expected one of ${chatRoles.join(', ')}.`;
  }
  if (issue.code === 'too_small' && field === 'messages') return 'Invalid messages: at least one message is required.';
  if (issue.code === 'invalid_type' && issue.input === undefined) return `Missing required field ${field}.`;
  return `Invalid ${field}: ${issue.message}.`;
}

/** Text of a message for scoring: string content, or the text parts of an array. */
export function messageText(content: ChatMessageInput['content']): string {
  if (typeof content === 'string') return content;
  if (!content) return '';
  return content
    .map((part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : ''))
    .filter(Boolean)
    .join('\n');
}

export function maxOutputTokens(body: ChatCompletionBody): number {
  return body.max_completion_tokens ?? body.max_tokens ?? 0;
}
