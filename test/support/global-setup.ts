import { mkdirSync } from 'node:fs';
import { buildAll } from '../../deploy/build';
import { newRunLogDir } from './paths';
import { resolveInfra } from './infra';

/**
 * Resolves Postgres and Redis once for the run; workers inherit the URLs.
 * Compiles the services (`npm run build`), so that the suites that run the
 * compiled JavaScript, as the images do, run this commit's.
 */
export default async function globalSetup(): Promise<void> {
  await buildAll(undefined, { quiet: true });
  const infra = await resolveInfra();
  process.env.TEST_DATABASE_URL = infra.databaseUrl;
  process.env.TEST_REDIS_URL = infra.redisUrl;
  (globalThis as { __infraStop?: () => Promise<void> }).__infraStop = infra.stop;
  process.env.TEST_LOG_DIR = newRunLogDir();
  mkdirSync(process.env.TEST_LOG_DIR, { recursive: true });
}
