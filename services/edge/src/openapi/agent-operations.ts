import { z } from 'zod';
import { AGENT_BASE_PATH, AGENT_ID_HEADER } from '../agent/routes';
import * as bodies from '../agent/bodies';
import type { Operation } from './operation';

const agentIdHeader = {
  name: AGENT_ID_HEADER,
  description: 'Which of the user\'s agent records to act on, when they own several; absent: the newest.',
  schema: z.guid().optional(),
};

/** The agent API's answers are built from the agent service's messages; their fields are described in docs/api.md. */
const answer = (description: string, status = 200) => ({ status, description, schema: z.looseObject({}) });

function agentOperation(
  method: Operation['method'],
  path: string,
  summary: string,
  fields: Pick<Operation, 'body' | 'query' | 'responses' | 'description'>,
): Operation {
  return {
    method,
    path: `${AGENT_BASE_PATH}${path}`,
    tag: 'agent',
    summary,
    credential: 'session',
    headers: [agentIdHeader],
    errors: ['validation', 'not_found'],
    ...fields,
  };
}

/** The agent API: a signed-in user's own agent record, its chat sessions, skills, memory, budget and automations. */
export const agentOperations: readonly Operation[] = [
  agentOperation('get', '/status', 'The agent\'s status', {
    description: 'The record and its quota; `include` (comma-separated) adds sections: messages, skills, logs, health.',
    query: bodies.statusQuery,
    responses: [answer('`agent`, `quota`, and the sections asked for.')],
  }),
  agentOperation('post', '/chat', 'Chat with the agent', {
    description: 'One turn of a chat session (a new session when `session_id` is absent); the agent may run its skills. Metered like gateway calls; `usage.cost_usd` is what the turn cost.',
    body: bodies.chatBody,
    responses: [answer('`session_id`, `session`, `reply`, `tool_runs`, `usage` (`calls`, `request_ids`, `model`, `cost_usd`).')],
  }),
  agentOperation('get', '/sessions', 'List chat sessions', { responses: [answer('`sessions`.')] }),
  agentOperation('post', '/sessions', 'Create a chat session', { body: bodies.createSessionBody, responses: [answer('`session`.', 201)] }),
  agentOperation('patch', '/sessions', 'Update a chat session', { body: bodies.updateSessionBody, responses: [answer('`session`.')] }),
  agentOperation('delete', '/sessions', 'Delete a chat session and its messages', {
    body: bodies.deleteSessionBody,
    responses: [answer('`deleted`, `sessionId`, `messages_deleted`.')],
  }),
  agentOperation('get', '/skills', 'List skills', { responses: [answer('`skills` (enabled) and `available`.')] }),
  agentOperation('post', '/skills', 'Enable or disable a skill', { body: bodies.enableSkillBody, responses: [answer('`skill`.')] }),
  agentOperation('put', '/skills', 'Set a skill\'s credentials', {
    description: 'Stored encrypted; never returned.',
    body: bodies.skillCredentialsBody,
    responses: [answer('`skill`.')],
  }),
  agentOperation('get', '/memory', 'List memories', { responses: [answer('`memories`.')] }),
  agentOperation('post', '/memory', 'Remember something', {
    description: '201 when the memory is new, 200 when the same key already held it.',
    body: bodies.createMemoryBody,
    responses: [answer('`memory`, `created`.', 201), answer('`memory`, `created`: false.')],
  }),
  agentOperation('get', '/token-budget', 'The agent\'s budget', { responses: [answer('`agent` and `quota`.')] }),
  agentOperation('post', '/token-budget', 'Recommend a model for a message', {
    body: bodies.recommendBody,
    responses: [answer('The recommended model, its tier and estimated cost.')],
  }),
  agentOperation('post', '/chat-automate', 'Automations', {
    description: '`command` automate, schedule, trigger or remind creates a workflow from `text` (201); `status` lists the workflows with their next runs.',
    body: bodies.automateBody,
    responses: [answer('`workflow` (created).', 201), answer('`workflows`, each with `next_run_at`.')],
  }),
  agentOperation('post', '/update', 'Change the agent\'s settings', {
    body: bodies.updateSettingsBody,
    responses: [answer('`agent`, `changes`, `note`.')],
  }),
];
