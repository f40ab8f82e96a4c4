import { DomainError } from '@gateway/lib/errors';
import { createKeyBodySchema } from '../contract/keys';
import { parseInput } from '../http/validation';
import { automateBody, chatBody, createMemoryBody, createSessionBody, skillCredentialsBody, updateSessionBody } from './bodies';

/** The field a refusal names, or undefined when the body passes. */
function refusedField(schema: Parameters<typeof parseInput>[0], body: unknown): string | undefined {
  try {
    parseInput(schema, body, 'body');
    return undefined;
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    expect(error.message).toMatch(/NUL characters or lone surrogates/);
    return error.field;
  }
}

describe('text the agent API and the key API store', () => {
  const sessionId = '7b0c8c2e-3f43-4a4e-9d1f-2f4f0e9e3c11';

  it.each([
    ['a chat message', chatBody, { message: 'hi\u0000' }, 'message'],
    ['a session title', createSessionBody, { title: 'Plans\ud800' }, 'title'],
    ['a session icon', updateSessionBody, { sessionId, icon: '\u0000' }, 'icon'],
    ['a memory value', createMemoryBody, { key: 'k', value: 'v\u0000', category: 'fact' }, 'value'],
    ['a skill credential', skillCredentialsBody, { skill: 'weather', config: { token: 'a\udc00' } }, 'config.token'],
    ['automation text', automateBody, { command: 'remind', text: 'every day\u0000' }, 'text'],
    ['a key name', createKeyBodySchema, { name: 'ci\u0000' }, 'name'],
  ])('refuses %s holding a NUL or a lone surrogate, naming the field', (_case, schema, body, field) => {
    expect(refusedField(schema, body)).toBe(field);
  });
});
