import { DomainError } from '@gateway/lib/errors';
import { z } from 'zod';

/** Where a value came from, as the client would name it. */
export type InputLocation = 'body' | 'query' | 'path';

const LOCATION_NOUN: Record<InputLocation, string> = {
  body: 'body field',
  query: 'query parameter',
  path: 'path parameter',
};

const ROOT_NAME: Record<InputLocation, string> = {
  body: 'the request body',
  query: 'the query string',
  path: 'the path',
};

/** `scopes[1]`, `bound_to.agent_id`: a field path the way a client writes it. */
function fieldName(path: readonly PropertyKey[]): string {
  return path.reduce<string>((name, key) => {
    if (typeof key === 'number') return `${name}[${key}]`;
    return name === '' ? String(key) : `${name}.${String(key)}`;
  }, '');
}

function withArticle(noun: string): string {
  const names: Record<string, string> = { int: 'an integer', object: 'a JSON object', array: 'an array' };
  return names[noun] ?? (/^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`);
}

/**
 * Messages for the issues every schema shares, so that each one says what
 * is allowed. A message set on a schema itself takes precedence.
 */
function describeIssue(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? 'is required' : `must be ${withArticle(issue.expected)}`;
    case 'invalid_value':
      return `must be one of: ${issue.values.map(String).join(', ')}`;
    case 'invalid_format':
      if (issue.format === 'guid' || issue.format === 'uuid') return 'must be a UUID';
      if (issue.format === 'datetime') return 'must be an ISO-8601 date-time with a time zone, e.g. 2030-01-31T00:00:00Z';
      return `must be a valid ${issue.format}`;
    case 'too_small':
      if (issue.origin === 'string' && Number(issue.minimum) === 1) return 'must not be empty';
      if (issue.origin === 'array') return `must have at least ${issue.minimum} item(s)`;
      return `must be at least ${issue.minimum}${issue.origin === 'string' ? ' characters' : ''}`;
    case 'too_big':
      if (issue.origin === 'array') return `must have at most ${issue.maximum} item(s)`;
      return `must be at most ${issue.maximum}${issue.origin === 'string' ? ' characters' : ''}`;
    default:
      return undefined;
  }
}

/** The names a top-level object schema accepts, to list beside an unknown one. */
function knownNames(schema: z.ZodType): string[] {
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

function describe(issue: z.core.$ZodIssue, location: InputLocation, known: string[]): { field: string; text: string } {
  if (issue.code === 'unrecognized_keys') {
    const prefix = issue.path.length > 0 ? `${fieldName(issue.path)}.` : '';
    const names = issue.keys.map((key) => `"${prefix}${key}"`).join(', ');
    const noun = location === 'body' ? 'field' : `${location} parameter`;
    const allowed = issue.path.length === 0 && known.length > 0 ? ` (allowed: ${known.join(', ')})` : '';
    return { field: `${prefix}${issue.keys[0] ?? ''}`, text: `unknown ${noun}${issue.keys.length > 1 ? 's' : ''} ${names}${allowed}` };
  }
  if (issue.path.length === 0) return { field: location, text: `${ROOT_NAME[location]} ${issue.message}` };
  const field = fieldName(issue.path);
  return { field, text: `${LOCATION_NOUN[location]} "${field}" ${issue.message}` };
}

/**
 * A union refused as a whole ("a string or an array of parts") says less than
 * the one alternative the value was meant for: an array whose third part is
 * wrong is reported at that part. The alternative meant is the one whose
 * type matched (its issues are not a type mismatch of the value itself).
 */
export function innermostIssue(issue: z.core.$ZodIssue): z.core.$ZodIssue {
  if (issue.code !== 'invalid_union') return issue;
  const meant = issue.errors.filter((branch) => !(branch.length === 1 && branch[0]?.code === 'invalid_type' && branch[0].path.length === 0));
  const inner = meant.length === 1 ? meant[0]?.[0] : undefined;
  if (!inner) return issue;
  return innermostIssue({ ...inner, path: [...issue.path, ...inner.path] } as z.core.$ZodIssue);
}

/**
 * Parses request input with a zod schema. Failure is a 400 `validation`
 * naming every offending field and what it allows; the first field is
 * attached for clients that handle one at a time.
 */
export function parseInput<Schema extends z.ZodType>(schema: Schema, value: unknown, location: InputLocation): z.output<Schema> {
  const result = schema.safeParse(value, { error: describeIssue });
  if (result.success) return result.data;
  const described = result.error.issues.map((issue) => describe(innermostIssue(issue), location, knownNames(schema)));
  throw new DomainError('validation', `Invalid request: ${described.map(({ text }) => text).join('; ')}.`, {
    field: described[0]?.field ?? location,
  });
}
