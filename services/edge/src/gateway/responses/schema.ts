import { z } from 'zod';
import { storableText } from '@gateway/lib/storable-text';
import { outputTokenBound } from '../request';

/**
 * The body of `POST /api/gateway/v1/responses` that the gateway serves: the
 * stateless part of OpenAI's Responses API (the `openai` package's
 * ResponseCreateParams), which translates onto chat completions. Fields the
 * gateway cannot honour without storing responses or running tools of its
 * own are refused by name (see `unsupportedFeature`), and any other field is
 * refused as unknown, listing these.
 */
const metadata = z.record(z.string().max(64), z.string().max(512));

const inputText = z.looseObject({ type: z.literal('input_text'), text: z.string() });
const inputImage = z.looseObject({
  type: z.literal('input_image'),
  image_url: z.string().nullish(),
  file_id: z.string().nullish(),
  detail: z.enum(['low', 'high', 'auto', 'original']).optional(),
});
const inputFile = z.looseObject({
  type: z.literal('input_file'),
  file_data: z.string().optional(),
  file_id: z.string().nullish(),
  file_url: z.string().optional(),
  filename: z.string().optional(),
});
const outputText = z.looseObject({ type: z.literal('output_text'), text: z.string() });
const refusal = z.looseObject({ type: z.literal('refusal'), refusal: z.string() });

const INPUT_PARTS = 'input_text, input_image, input_file';
const inputPart = z.discriminatedUnion('type', [inputText, inputImage, inputFile], {
  error: () => `must be a content part of type ${INPUT_PARTS}`,
});
const assistantPart = z.discriminatedUnion('type', [outputText, refusal, inputText], {
  error: () => 'must be a content part of type output_text, refusal, input_text',
});

const inputMessage = z.looseObject({
  type: z.literal('message'),
  role: z.enum(['user', 'system', 'developer']),
  content: z.union([z.string(), z.array(inputPart)], { error: () => `must be a string or an array of content parts (type ${INPUT_PARTS})` }),
});
const assistantMessage = z.looseObject({
  type: z.literal('message'),
  role: z.literal('assistant'),
  content: z.union([z.string(), z.array(assistantPart)], { error: () => 'must be a string or an array of content parts (type output_text, refusal, input_text)' }),
});
const functionCall = z.looseObject({ type: z.literal('function_call'), call_id: z.string(), name: z.string(), arguments: z.string() });
const functionCallOutput = z.looseObject({
  type: z.literal('function_call_output'),
  call_id: z.string(),
  output: z.union([z.string(), z.array(inputPart)], { error: () => `must be a string or an array of content parts (type ${INPUT_PARTS})` }),
});

export const INPUT_ITEM_TYPES = ['message', 'function_call', 'function_call_output'] as const;

/** A message may leave out `type` (EasyInputMessage); the items below are told apart by it. */
const inputItem = z.preprocess(
  (item) => (typeof item === 'object' && item !== null && !Array.isArray(item) && !('type' in item) && 'role' in item ? { ...item, type: 'message' } : item),
  z.union([z.discriminatedUnion('role', [inputMessage, assistantMessage], { error: () => 'must be one of user, system, developer, assistant' }), functionCall, functionCallOutput], {
    error: () => `must be an input item of type ${INPUT_ITEM_TYPES.join(', ')}`,
  }),
);

const functionTool = z.looseObject({
  type: z.literal('function', { error: () => 'must be "function": only function tools are served (built-in tools such as web_search, file_search or computer_use are not)' }),
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, { error: () => 'must be letters, digits, _ and -, at most 64 characters' }),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
});

const toolChoice = z.union([z.enum(['none', 'auto', 'required']), z.strictObject({ type: z.literal('function'), name: z.string() })], {
  error: () => 'must be "none", "auto", "required" or {"type": "function", "name": ...}: only function tools are served',
});

const textFormat = z.discriminatedUnion(
  'type',
  [
    z.strictObject({ type: z.literal('text') }),
    z.strictObject({ type: z.literal('json_object') }),
    z.strictObject({
      type: z.literal('json_schema'),
      name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, { error: () => 'must be letters, digits, _ and -, at most 64 characters' }),
      schema: z.record(z.string(), z.unknown()),
      description: z.string().optional(),
      strict: z.boolean().nullish(),
    }),
  ],
  { error: () => 'must be a format of type text, json_object, json_schema' },
);

/** `include` values that ask for outputs the gateway never produces (built-in tools, encrypted reasoning): nothing to include. */
const includable = z.enum([
  'file_search_call.results',
  'web_search_call.results',
  'web_search_call.action.sources',
  'computer_call_output.output.image_url',
  'code_interpreter_call.outputs',
  'reasoning.encrypted_content',
  'message.input_image.image_url',
]);

export const responsesRequestBody = z.strictObject({
  model: storableText().min(1).max(200),
  input: z.union([z.string(), z.array(inputItem).min(1)], { error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string or an array of input items') }),
  instructions: z.string().nullish(),
  tools: z.array(functionTool).optional(),
  tool_choice: toolChoice.optional(),
  parallel_tool_calls: z.boolean().nullish(),
  max_output_tokens: outputTokenBound.nullish(),
  text: z.strictObject({ format: textFormat.optional(), verbosity: z.enum(['low', 'medium', 'high']).nullish() }).optional(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  metadata: metadata.nullish(),
  user: z.string().optional(),
  safety_identifier: z.string().optional(),
  prompt_cache_key: z.string().optional(),
  service_tier: z.enum(['auto', 'default', 'flex', 'scale', 'priority']).nullish(),
  reasoning: z.strictObject({ effort: z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']).nullish(), summary: z.enum(['auto', 'concise', 'detailed']).nullish() }).nullish(),
  include: z.array(includable).nullish(),
  truncation: z.literal('disabled').nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.strictObject({ include_obfuscation: z.boolean().optional() }).nullish(),
  store: z.literal(false).nullish(),
  // Refused by name before the schema runs when set (see unsupportedFeature); accepted when null or off.
  previous_response_id: z.null().optional(),
  conversation: z.null().optional(),
  background: z.literal(false).nullish(),
  prompt: z.null().optional(),
});

export type ResponsesRequest = z.infer<typeof responsesRequestBody>;
export type ResponsesInputItem = Exclude<ResponsesRequest['input'], string>[number];
export type ResponsesInputPart = z.infer<typeof inputPart>;

const STATELESS = 'the gateway keeps no responses: send the whole conversation in "input" (with "store" false or absent)';

/**
 * What the gateway does not serve, each with the reason and what to do
 * instead: checked before the schema, so that the answer names the feature
 * rather than a type mismatch.
 */
export function unsupportedFeature(body: Record<string, unknown>): { field: string; message: string } | undefined {
  const set = (name: string) => body[name] !== undefined && body[name] !== null;
  if (body.store === true) return { field: 'store', message: `stored responses are not supported (${STATELESS})` };
  if (set('previous_response_id')) return { field: 'previous_response_id', message: `is not supported (${STATELESS})` };
  if (set('conversation')) return { field: 'conversation', message: `is not supported (${STATELESS})` };
  if (body.background === true) return { field: 'background', message: 'background responses are not supported: the gateway answers while the request is open' };
  if (set('prompt')) return { field: 'prompt', message: 'stored prompt templates are not supported: send "instructions" and "input"' };
  if (body.truncation === 'auto') return { field: 'truncation', message: '"auto" is not supported: the gateway keeps no context to truncate, send "disabled" or leave it out' };
  const input = body.input;
  if (Array.isArray(input)) {
    const position = input.findIndex((item) => typeof item === 'object' && item !== null && (item as { type?: unknown }).type === 'item_reference');
    if (position >= 0) {
      return {
        field: `input[${position}]`,
        message: `item_reference is not supported (${STATELESS}; with the Vercel AI SDK set providerOptions.openai.store to false so that it sends items instead of references)`,
      };
    }
  }
  return undefined;
}
