import type { MigrationIndex } from '@gateway/lib/db';
import * as identity from './0001_identity';
import * as agentInstances from './0002_agent_instances';
import * as apiKeys from './0003_api_keys';

/** Every migration of schema `auth`, in order. Released entries never change. */
export const authMigrations: MigrationIndex = {
  '0001_identity': identity,
  '0002_agent_instances': agentInstances,
  '0003_api_keys': apiKeys,
};

/** The migration that creates `api_keys`, named in the 503 when it is missing. */
export const API_KEYS_MIGRATION = '0003_api_keys';
