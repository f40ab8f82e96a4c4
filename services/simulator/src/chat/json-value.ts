import { hash32 } from './text';

/**
 * A deterministic JSON value valid under a JSON Schema: the arguments of a
 * simulated tool call, and the answer to a `json_schema` response format.
 * It covers the subset OpenAI's structured outputs allow (and tools use):
 * objects with `properties`, `required` and `additionalProperties: false`,
 * arrays (`items`, `minItems`, `maxItems`), `enum` and `const`, strings
 * (`minLength`, `maxLength`, common `format`s), numbers and integers within
 * `minimum`/`maximum` (exclusive ones too) and `multipleOf`, booleans, null,
 * nullable as `anyOf` with `{type: "null"}` or as a type array, and
 * `$defs`/`definitions` with local `$ref`s, recursive ones included.
 * `anyOf`/`oneOf` take the first alternative, `allOf` merges its parts.
 *
 * The same schema and seed always give the same value; `seed` (the prompt)
 * varies the strings, numbers and booleans. Past a depth budget, a recursive
 * schema takes its way out: null where allowed, the fewest array items,
 * only the required properties.
 */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
type Schema = Record<string, unknown>;

const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'] as const;
/** Depth after which recursion is cut short (values nest at most a little deeper). */
const DEPTH_BUDGET = 6;
const MAX_ITEMS_GENERATED = 2;

function isRecord(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

interface Context {
  root: Schema;
  seed: string;
}

export function exampleValue(schema: unknown, path: string, seed = ''): JsonValue {
  const root = isRecord(schema) ? schema : {};
  return valueOf(root, path, 0, { root, seed });
}

/** `#/$defs/Name`, `#/definitions/Name` or `#` (the root); anything else resolves to no constraint. */
function resolveRef(ref: string, root: Schema): Schema {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return {};
  let node: unknown = root;
  for (const segment of ref.slice(2).split('/')) {
    const key = segment.replaceAll('~1', '/').replaceAll('~0', '~');
    node = isRecord(node) ? node[key] : undefined;
  }
  return isRecord(node) ? node : {};
}

function isNullSchema(schema: unknown): boolean {
  return isRecord(schema) && (schema.type === 'null' || (Array.isArray(schema.enum) && schema.enum.length === 1 && schema.enum[0] === null));
}

function valueOf(schema: Schema, path: string, depth: number, context: Context): JsonValue {
  if (typeof schema.$ref === 'string') return valueOf(resolveRef(schema.$ref, context.root), path, depth + 1, context);
  if (schema.const !== undefined) return schema.const as JsonValue;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0] as JsonValue;
  if (schema.default !== undefined) return schema.default as JsonValue;
  const exhausted = depth > DEPTH_BUDGET;
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const options = schema[keyword];
    if (!Array.isArray(options) || options.length === 0) continue;
    // Nullable alternatives: a value while there is depth to spare, null once recursion must end.
    const chosen = exhausted ? (options.find(isNullSchema) ?? options[0]) : (options.find((option) => !isNullSchema(option)) ?? options[0]);
    return valueOf(isRecord(chosen) ? chosen : {}, path, depth + 1, context);
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    return valueOf(mergeAll(schema.allOf, schema, context.root), path, depth + 1, context);
  }
  const hash = hash32(`${context.seed}\u0000${path}`);
  switch (typeOf(schema, exhausted)) {
    case 'string':
      return stringFor(schema, path, hash);
    case 'integer':
      return numberWithin(schema, hash, true);
    case 'number':
      return numberWithin(schema, hash, false);
    case 'boolean':
      return hash % 2 === 0;
    case 'array':
      return arrayOf(schema, path, depth, context, exhausted);
    case 'object':
      return objectOf(schema, path, depth, context, exhausted);
    default:
      return null;
  }
}

/** The type to generate: the declared one (the first non-null of a type array while depth lasts). */
function typeOf(schema: Schema, exhausted: boolean): string | undefined {
  const { type } = schema;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) {
    const types = type.filter((entry): entry is string => typeof entry === 'string');
    if (exhausted && types.includes('null')) return 'null';
    return types.find((entry) => entry !== 'null') ?? 'null';
  }
  if (isRecord(schema.properties)) return 'object';
  if (schema.items !== undefined) return 'array';
  return undefined;
}

function mergeAll(parts: unknown[], outer: Schema, root: Schema): Schema {
  const merged: Schema = { ...outer, allOf: undefined };
  for (const part of parts) {
    const resolved = isRecord(part) && typeof part.$ref === 'string' ? resolveRef(part.$ref, root) : part;
    if (!isRecord(resolved)) continue;
    Object.assign(merged, resolved, {
      properties: { ...(isRecord(merged.properties) ? merged.properties : {}), ...(isRecord(resolved.properties) ? resolved.properties : {}) },
      required: [...(Array.isArray(merged.required) ? merged.required : []), ...(Array.isArray(resolved.required) ? resolved.required : [])],
    });
  }
  return merged;
}

function arrayOf(schema: Schema, path: string, depth: number, context: Context, exhausted: boolean): JsonValue[] {
  const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0;
  const maxItems = typeof schema.maxItems === 'number' ? schema.maxItems : Infinity;
  const count = exhausted ? minItems : Math.min(maxItems, Math.max(minItems, MAX_ITEMS_GENERATED));
  const items = isRecord(schema.items) ? schema.items : {};
  return Array.from({ length: count }, (_, index) => valueOf(items, `${path}.${index}`, depth + 1, context));
}

function objectOf(schema: Schema, path: string, depth: number, context: Context, exhausted: boolean): { [key: string]: JsonValue } {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : []);
  const value: { [key: string]: JsonValue } = {};
  for (const [name, property] of Object.entries(properties)) {
    if (exhausted && !required.has(name)) continue;
    value[name] = valueOf(isRecord(property) ? property : {}, `${path}.${name}`, depth + 1, context);
  }
  // A required name no property describes still gets a value (any value is valid for it).
  for (const name of required) if (!(name in value)) value[name] = WORDS[hash32(`${path}.${name}`) % WORDS.length] ?? 'alpha';
  return value;
}

function numberWithin(schema: Schema, hash: number, integer: boolean): number {
  const step = typeof schema.multipleOf === 'number' && schema.multipleOf > 0 ? schema.multipleOf : integer ? 1 : 0.01;
  const minimum = typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + step : undefined;
  const maximum = typeof schema.maximum === 'number' ? schema.maximum : typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum - step : undefined;
  const low = minimum ?? (maximum !== undefined ? maximum - 100 : 1);
  const high = maximum ?? low + 100;
  const first = Math.ceil(low / step);
  const last = Math.floor(high / step);
  if (last < first) return low;
  const steps = first + (hash % (last - first + 1));
  // Rounded to the step's decimals so that 0.1 * 3 prints as 0.3.
  const decimals = Math.min(10, (String(step).split('.')[1] ?? '').length);
  return Number((steps * step).toFixed(decimals));
}

function stringFor(schema: Schema, path: string, hash: number): string {
  switch (schema.format) {
    case 'date':
      return '2025-01-15';
    case 'date-time':
      return '2025-01-15T12:00:00Z';
    case 'time':
      return '12:00:00Z';
    case 'duration':
      return 'P1D';
    case 'email':
      return 'someone@example.com';
    case 'hostname':
      return 'example.com';
    case 'ipv4':
      return '192.0.2.1';
    case 'ipv6':
      return '2001:db8::1';
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
