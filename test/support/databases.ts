import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/**
 * Each test file gets a database of its own, so nothing depends on test
 * order or on another file's rows.
 */
export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

function adminUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set: run the tests through jest (test/support/global-setup.ts)');
  return url;
}

export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const name = `t_${label.replace(/[^a-z0-9]/gi, '_').toLowerCase().slice(0, 30)}_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl() });
  await admin.connect();
  try {
    await admin.query(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new Client({ connectionString: adminUrl() });
      await client.connect();
      try {
        await client.query(`drop database if exists "${name}" with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}

export function testRedisUrl(): string {
  const url = process.env.TEST_REDIS_URL;
  if (!url) throw new Error('TEST_REDIS_URL is not set: run the tests through jest (test/support/global-setup.ts)');
  return url;
}
