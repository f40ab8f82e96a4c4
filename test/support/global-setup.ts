import { mkdirSync } from 'node:fs';
import { newRunLogDir } from './paths';
import { resolveInfra } from './infra';

/** Resolves Postgres and Redis once for the run; workers inherit the URLs. */
export default async function globalSetup(): Promise<void> {
  const infra = await resolveInfra();
  process.env.TEST_DATABASE_URL = infra.databaseUrl;
  process.env.TEST_REDIS_URL = infra.redisUrl;
  (globalThis as { __infraStop?: () => Promise<void> }).__infraStop = infra.stop;
  process.env.TEST_LOG_DIR = newRunLogDir();
  mkdirSync(process.env.TEST_LOG_DIR, { recursive: true });
}
