import type { Kysely } from 'kysely';
import type { Logger } from '@gateway/lib/logging';
import type { AuthSettings } from './config';
import type { AuthDatabase } from './db/schema';
import type { AttemptThrottle } from './identity/throttle';

/**
 * Everything the auth logic depends on, passed in: real Postgres and Redis
 * in the stack, PGlite and in-process adapters in the embedded mode.
 */
export interface AuthDeps {
  db: Kysely<AuthDatabase>;
  throttle: AttemptThrottle;
  settings: AuthSettings;
  logger: Logger;
}
