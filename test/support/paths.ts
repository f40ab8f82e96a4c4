import { join } from 'node:path';

export const REPO_ROOT = join(__dirname, '..', '..');
/** Every process a test starts writes its output here, for the secret scan. */
export const LOG_DIR = join(REPO_ROOT, '.tmp', 'test-logs');
