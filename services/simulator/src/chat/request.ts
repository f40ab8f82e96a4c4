import { z } from 'zod';

/**
 * The part of a chat-completions request the simulator reads. Everything else
 * passes (as with a real provider, unknown fields are ignored) unless the
 * catalog lists it as unsupported for the model.
 */
export const messageRoles = ['system', 'developer', 'user', 'assistant', 'tool', 'function'] as const;

const toolCallSchema = z.looseObject({
  id: z.string().optional(),
  type: z.literal('function').optional(),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

const messageSchema = z.looseObject({
  role: z.enum(messageRoles),
  content: z.union([z.string(), z.array(z.unknown()), z.null()]).optional(),
  name: z.string().optional(),
  tool_calls: z.array(toolCallSchema).optional(),
});

const functionNameSchema = z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'letters, digits, _ and -, at most 64 characters');

const toolSchema = z.looseObject({
  type: z.literal('function'),
  function: z.looseObject({
    name: functionNameSchema,
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  }),
});

const toolChoiceSchema = z.union([
  z.enum(['none', 'auto', 'required']),
  z.looseObject({ type: z.literal('function'), function: z.looseObject({ name: z.string() }) }),
]);

/** The answer's shape: prose, any JSON object, or JSON valid under a schema (structured outputs). */
const responseFormatSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text') }),
  z.looseObject({ type: z.literal('json_object') }),
  z.looseObject({
    type: z.literal('json_schema'),
    json_schema: z.looseObject({
      name: functionNameSchema,
      description: z.string().optional(),
      schema: z.record(z.string(), z.unknown()).optional(),
      strict: z.boolean().nullish(),
    }),
  }),
]);

const positiveInt = z.number().int().min(1);

export const chatRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(messageSchema).min(1),
  n: z.number().int().min(1).max(128).nullish(),
  max_tokens: positiveInt.nullish(),
  max_completion_tokens: positiveInt.nullish(),
  stop: z.union([z.string(), z.array(z.string()).max(4)]).nullish(),
  seed: z.number().int().nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
  tools: z.array(toolSchema).optional(),
  tool_choice: toolChoiceSchema.optional(),
  parallel_tool_calls: z.boolean().optional(),
  response_format: responseFormatSchema.optional(),
});

export type ChatRequest = z.infer<typeof chatRequestSchema>;
export type ChatMessage = ChatRequest['messages'][number];
export type ToolDefinition = NonNullable<ChatRequest['tools']>[number];
export type ResponseFormat = NonNullable<ChatRequest['response_format']>;

/** A request the simulator refuses, in the terms of OpenAI's error body. */
export class InvalidRequest extends Error {
  constructor(
    message: string,
    readonly param: string | null,
    readonly code: string | null = null,
  ) {
    super(message);
    this.name = 'InvalidRequest';
  }
}

export function parseChatRequest(raw: unknown): ChatRequest {
  const result = chatRequestSchema.safeParse(raw);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const param = issue && issue.path.length > 0 ? issue.path.join('.') : null;
  throw new InvalidRequest(`Invalid value for '${param ?? 'body'}': ${issue?.message ?? 'malformed request'}.`, param, 'invalid_value');
}

/**
 * Parameters the catalog says this model rejects: refused exactly as the
 * provider would, which is what proves the gateway dropped them.
 */
export function rejectUnsupportedParams(request: ChatRequest, unsupported: ReadonlySet<string> | undefined): void {
  if (!unsupported || unsupported.size === 0) return;
  for (const param of unsupported) {
    if (request[param] === undefined) continue;
    throw new InvalidRequest(
      `Unsupported parameter: '${param}' is not supported with this model.`,
      param,
      'unsupported_parameter',
    );
  }
}

/** A named tool_choice must name an offered function. */
export function checkToolChoice(request: ChatRequest): void {
  const choice = request.tool_choice;
  if (choice === undefined || typeof choice === 'string') return;
  const offered = request.tools?.some((tool) => tool.function.name === choice.function.name) ?? false;
  if (!offered) {
    throw new InvalidRequest(`Invalid value for 'tool_choice': no function named '${choice.function.name}' in 'tools'.`, 'tool_choice');
  }
}

/** The text of the last user message: what the answer, the tool decision and the directives key on. */
export function lastUserMessage(request: ChatRequest): ChatMessage | undefined {
  for (let index = request.messages.length - 1; index >= 0; index -= 1) {
    const message = request.messages[index];
    if (message?.role === 'user') return message;
  }
  return undefined;
}

/** The text of a message's content: a string, or the `text` parts of a content array. */
export function messageText(message: ChatMessage): string {
  const { content } = message;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const texts: string[] = [];
  for (const part of content) {
    if (typeof part === 'object' && part !== null && 'text' in part && typeof part.text === 'string') texts.push(part.text);
  }
  return texts.join('\n');
}
