import { runMigrationCli } from '@gateway/lib/db/migrate-cli';
import { AUTH_SCHEMA, authMigrations } from './index';

/** Applies schema `auth`'s pending migrations to DATABASE_URL (part of `npm run migrate`). */
runMigrationCli(AUTH_SCHEMA, authMigrations);
