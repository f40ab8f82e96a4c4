import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { resolveInfra, type Infra } from '../../support/infra';
import { REPO_ROOT } from '../../support/paths';

/**
 * What a benchmark needs before it starts anything: the Postgres and Redis
 * the tests would use (same lookup order), exported the way the test helpers
 * read them, and a log folder of its own for the processes it starts.
 */
export async function prepareBenchEnvironment(name: string): Promise<Infra & { logDir: string }> {
  const infra = await resolveInfra();
  process.env.TEST_DATABASE_URL = infra.databaseUrl;
  process.env.TEST_REDIS_URL = infra.redisUrl;
  const logDir = join(REPO_ROOT, '.tmp', 'bench-logs', `${name}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  mkdirSync(logDir, { recursive: true });
  process.env.TEST_LOG_DIR = logDir;
  return { ...infra, logDir };
}
