import { join } from 'node:path';

export const REPO_ROOT = join(__dirname, '..', '..');
const LOG_ROOT = join(REPO_ROOT, '.tmp', 'test-logs');

/**
 * Where the processes a run starts write their output, for the secret scan.
 * Each jest run gets a folder of its own (set by global-setup), so runs side
 * by side never scan, or delete, each other's logs.
 */
export function logDir(): string {
  return process.env.TEST_LOG_DIR ?? join(LOG_ROOT, 'manual');
}

export function newRunLogDir(): string {
  return join(LOG_ROOT, `run-${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}`);
}
