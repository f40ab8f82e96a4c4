import { TEST_CATALOG_PATH } from './support/catalog';
import OpenAI from 'openai';
import { AUTH_SCHEMA, type AuthDatabase } from '@gateway/auth/db';
import { connectDatabase, type Database } from '@gateway/lib/db';
import { createTestDatabase, testRedisUrl, type TestDatabase } from '../support/databases';
import { findCredentials } from '../support/secrets-scan';
import { startStack, type Stack } from '../support/stack';
import { seedCaller, type Caller } from './support/seed';

jest.setTimeout(120_000);

let database: TestDatabase;
let stack: Stack;
let auth: Database<AuthDatabase>;

beforeAll(async () => {
  database = await createTestDatabase('gateway_e2e');
  stack = await startStack({ databaseUrl: database.url, redisUrl: testRedisUrl(), catalogPath: TEST_CATALOG_PATH });
  auth = connectDatabase<AuthDatabase>({ kind: 'postgres', url: database.url, poolSize: 2 }, AUTH_SCHEMA);
});

afterAll(async () => {
  await auth?.destroy();
  await stack?.stop();
  await database?.drop();
});

function client(caller: Caller): OpenAI {
  return new OpenAI({ apiKey: caller.key, baseURL: `${stack.baseUrl}/api/gateway/v1`, maxRetries: 0 });
}

describe('chat completions through the openai client', () => {
  it('answers and tells the truth in its headers', async () => {
    const caller = await seedCaller(auth.db, Buffer.from(stack.secretsKey, 'hex'), { plan: 'simulated' });
    const { data, response } = await client(caller)
      .chat.completions.create({ model: 'auto', messages: [{ role: 'user', content: 'Say hello in one line.' }] })
      .withResponse();
    console.log(JSON.stringify(data), Object.fromEntries(response.headers.entries()));
    expect(data.choices[0]?.message.content).toBeTruthy();
  });

  it('logged no credential in any process', () => {
    expect(stack.processes().flatMap((service) => findCredentials(service.logs()))).toEqual([]);
  });
});
