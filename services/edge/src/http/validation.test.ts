import { DomainError } from '@gateway/lib/errors';
import { z } from 'zod';
import { parseInput } from './validation';

function validationError(run: () => unknown): DomainError {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a validation error');
}

describe('parseInput', () => {
  const body = z.strictObject({
    name: z.string().min(1),
    scopes: z.array(z.string()).optional(),
    agent_id: z.guid().optional(),
    days: z.number().int().min(1).max(3650).optional(),
    at: z.iso.datetime({ offset: true }).optional(),
  });

  it('returns the parsed value when the input is valid', () => {
    expect(parseInput(body, { name: 'ci', days: 30 }, 'body')).toEqual({ name: 'ci', days: 30 });
  });

  it.each([
    [{}, 'name', 'body field "name" is required'],
    [{ name: '' }, 'name', 'body field "name" must not be empty'],
    [{ name: 7 }, 'name', 'body field "name" must be a string'],
    [{ name: 'x', scopes: ['inference', 3] }, 'scopes[1]', 'body field "scopes[1]" must be a string'],
    [{ name: 'x', agent_id: 'nope' }, 'agent_id', 'body field "agent_id" must be a UUID'],
    [{ name: 'x', days: 0 }, 'days', 'body field "days" must be at least 1'],
    [{ name: 'x', days: 4000 }, 'days', 'body field "days" must be at most 3650'],
    [{ name: 'x', days: 1.5 }, 'days', 'body field "days" must be an integer'],
    [{ name: 'x', at: '2030-01-01' }, 'at', 'body field "at" must be an ISO-8601 date-time'],
    [{ name: 'x', colour: 'red', size: 2 }, 'colour', 'unknown fields "colour", "size"'],
    ['text', 'body', 'the request body must be a JSON object'],
    [undefined, 'body', 'the request body is required'],
  ])('rejects %j naming %s', (input, field, message) => {
    const error = validationError(() => parseInput(body, input, 'body'));
    expect({ kind: error.kind, field: error.field }).toEqual({ kind: 'validation', field });
    expect(error.message).toContain(message);
  });

  it('lists the allowed values of an enum', () => {
    const error = validationError(() => parseInput(z.object({ grant_type: z.enum(['password', 'refresh_token']) }), {}, 'query'));
    expect(error.field).toBe('grant_type');
    expect(error.message).toBe('Invalid request: query parameter "grant_type" must be one of: password, refresh_token.');
  });

  it('names every offending field, and the first one as the field', () => {
    const error = validationError(() => parseInput(z.strictObject({ org: z.guid(), id: z.guid() }), { org: 'a', id: 'b' }, 'path'));
    expect(error.field).toBe('org');
    expect(error.message).toBe('Invalid request: path parameter "org" must be a UUID; path parameter "id" must be a UUID.');
  });

  it('lists the names a schema accepts beside an unknown one', () => {
    const query = z.strictObject({ range: z.string().optional(), group_by: z.string().optional() });
    const error = validationError(() => parseInput(query, { range: '7d', colour: 'red' }, 'query'));
    expect(error.field).toBe('colour');
    expect(error.message).toBe('Invalid request: unknown query parameter "colour" (allowed: range, group_by).');
  });

  it('keeps a message a schema sets itself', () => {
    const schema = z.object({ a: z.number().optional(), b: z.number().optional() }).refine((value) => value.a === undefined || value.b === undefined, {
      message: 'cannot be given together with a',
      path: ['b'],
    });
    expect(validationError(() => parseInput(schema, { a: 1, b: 2 }, 'body')).message).toBe(
      'Invalid request: body field "b" cannot be given together with a.',
    );
  });
});
