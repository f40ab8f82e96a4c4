import { runMigrationCli } from '@gateway/lib/db/migrate-cli';
import { AGENT_SCHEMA, agentMigrations } from './index';

/** Applies schema `agent`'s pending migrations to DATABASE_URL (part of `npm run migrate`). */
runMigrationCli(AGENT_SCHEMA, agentMigrations);
