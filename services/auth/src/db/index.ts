export { AUTH_SCHEMA, type AuthDatabase } from './schema';
export { API_KEYS_MIGRATION, authMigrations } from './migrations';
