export { AGENT_SCHEMA, type AgentDatabase } from './schema';
export { agentMigrations } from './migrations';
