import { hash32 } from './text';
import { lastUserMessage, messageText, type ChatRequest, type ToolDefinition } from './request';

/**
 * When the simulator answers with tool calls instead of text (tools offered, and
 * tool_choice is not "none"):
 * - tool_choice "required": the functions the last user message names, else the first tool;
 * - tool_choice naming a function: that function;
 * - tool_choice "auto" or absent: only when the conversation ends with a user
 *   message (not a tool result) that names an offered function or contains the
 *   word "tool"; then the named functions, else the first tool.
 * With parallel_tool_calls false, at most one call.
 */
export function chooseToolCalls(request: ChatRequest): ToolDefinition[] {
  const tools = request.tools ?? [];
  const choice = request.tool_choice;
  if (tools.length === 0 || choice === 'none') return [];
  if (typeof choice === 'object') return tools.filter((tool) => tool.function.name === choice.function.name).slice(0, 1);

  const lastUser = lastUserMessage(request);
  const text = lastUser ? messageText(lastUser).toLowerCase() : '';
  const named = tools.filter((tool) => text.includes(tool.function.name.toLowerCase()));
  if (choice !== 'required') {
    const endsWithUser = request.messages[request.messages.length - 1]?.role === 'user';
    if (!endsWithUser || (named.length === 0 && !/\btools?\b/.test(text))) return [];
  }
  const calls = named.length > 0 ? named : tools.slice(0, 1);
  return request.parallel_tool_calls === false ? calls.slice(0, 1) : calls;
}

type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'] as const;
const MAX_DEPTH = 6;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function schemaType(schema: Record<string, unknown>): string | undefined {
  const { type } = schema;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return type.find((entry): entry is string => typeof entry === 'string' && entry !== 'null') ?? 'null';
  if (isRecord(schema.properties)) return 'object';
  if (schema.items !== undefined) return 'array';
  return undefined;
}

function numberWithin(schema: Record<string, unknown>, hash: number, integer: boolean): number {
  const minimum = typeof schema.minimum === 'number' ? schema.minimum : undefined;
  const maximum = typeof schema.maximum === 'number' ? schema.maximum : undefined;
  const low = minimum ?? (maximum !== undefined ? maximum - 100 : 1);
  const high = maximum ?? low + 100;
  const value = low + (hash % 1000) / 1000 * (high - low);
  return integer ? Math.min(Math.floor(high), Math.max(Math.ceil(low), Math.round(value))) : Math.round(value * 100) / 100;
}

function stringFor(schema: Record<string, unknown>, path: string, hash: number): string {
  switch (schema.format) {
    case 'date':
      return '2025-01-15';
    case 'date-time':
      return '2025-01-15T12:00:00Z';
    case 'email':
      return 'someone@example.com';
    case 'uri':
    case 'url':
      return 'https://example.com/';
    case 'uuid':
      return '00000000-0000-4000-8000-000000000000';
  }
  const word = `${path.split('.').pop() ?? 'value'}-${WORDS[hash % WORDS.length]}`;
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
  return word.padEnd(minLength, 'x').slice(0, maxLength);
}

/** A deterministic value valid under a JSON schema (the subset tools use). */
export function exampleValue(schema: unknown, path: string, depth = 0): JsonValue {
  if (!isRecord(schema) || depth > MAX_DEPTH) return null;
  if (schema.const !== undefined) return schema.const as JsonValue;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0] as JsonValue;
  if (schema.default !== undefined) return schema.default as JsonValue;
  for (const keyword of ['anyOf', 'oneOf', 'allOf'] as const) {
    const options = schema[keyword];
    if (Array.isArray(options) && options.length > 0) return exampleValue(options[0], path, depth + 1);
  }
  const hash = hash32(path);
  switch (schemaType(schema)) {
    case 'string':
      return stringFor(schema, path, hash);
    case 'integer':
      return numberWithin(schema, hash, true);
    case 'number':
      return numberWithin(schema, hash, false);
    case 'boolean':
      return hash % 2 === 0;
    case 'array': {
      const minItems = typeof schema.minItems === 'number' ? Math.max(1, schema.minItems) : 1;
      return Array.from({ length: minItems }, (_, index) => exampleValue(schema.items, `${path}.${index}`, depth + 1));
    }
    case 'object': {
      const value: { [key: string]: JsonValue } = {};
      const properties = isRecord(schema.properties) ? schema.properties : {};
      for (const [name, property] of Object.entries(properties)) value[name] = exampleValue(property, `${path}.${name}`, depth + 1);
      return value;
    }
    default:
      return null;
  }
}

/** The JSON arguments of a call to `tool`, built from its parameters schema. */
export function toolArguments(tool: ToolDefinition): string {
  const parameters = tool.function.parameters ?? { type: 'object', properties: {} };
  return JSON.stringify(exampleValue(parameters, tool.function.name));
}
