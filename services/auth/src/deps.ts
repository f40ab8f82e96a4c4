import type { Kysely } from 'kysely';
import type { Logger } from '@gateway/lib/logging';
import type { AuthSettings } from './config';
import type { AuthDatabase } from './db/schema';
import type { AttemptThrottle } from './identity/throttle';
import type { PrincipalInvalidator } from './invalidation/invalidator';

/**
 * Everything the auth logic depends on, passed in: real Postgres and Redis
 * in the stack, PGlite and in-process adapters in the embedded mode.
 */
export interface AuthDeps {
  db: Kysely<AuthDatabase>;
  throttle: AttemptThrottle;
  /** Tells edge replicas when what a credential grants has changed. */
  invalidator: PrincipalInvalidator;
  settings: AuthSettings;
  logger: Logger;
}
