import { mkdirSync, rmSync } from 'node:fs';
import { LOG_DIR } from './paths';
import { resolveInfra } from './infra';

/** Resolves Postgres and Redis once for the run; workers inherit the URLs. */
export default async function globalSetup(): Promise<void> {
  const infra = await resolveInfra();
  process.env.TEST_DATABASE_URL = infra.databaseUrl;
  process.env.TEST_REDIS_URL = infra.redisUrl;
  (globalThis as { __infraStop?: () => Promise<void> }).__infraStop = infra.stop;
  rmSync(LOG_DIR, { recursive: true, force: true });
  mkdirSync(LOG_DIR, { recursive: true });
}
