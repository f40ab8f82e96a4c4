import type { z } from 'zod';
import type { UnaryHandlers } from '@gateway/lib/grpc';
import { parseInput, type FieldNamer } from '@gateway/lib/validation';
import type { AgentServiceService } from '@gateway/proto/gen/gateway/agent/v1/agent';
import { createWorkflow, listWorkflows, toWorkflowMessage } from '../automation/workflows';
import { periodQuota, recommendModel } from '../budget/budget';
import { chat } from '../chat/chat';
import { requireAgentTables } from '../db/errors';
import type { AgentDeps } from '../deps';
import { recentLogs, toLogEntry } from '../logs/logs';
import { listMemories, rememberEntry } from '../memory/memories';
import { recentMessages, toChatMessage } from '../sessions/messages';
import { createSession, deleteSession, listSessions, updateSession } from '../sessions/sessions';
import { updateSettings } from '../settings/update';
import { listSkills, setSkillCredentials, setSkillEnabled } from '../skills/skills';
import { checkHealth } from '../status/health';
import { resolveActor, type Acting } from './actor';
import { toMemoryEntry, toSessionMessage } from './convert';
import * as requests from './requests';

/** How many recent messages and log entries a status shows. */
export const STATUS_RECENT_ITEMS = 20;

type AgentHandlers = UnaryHandlers<typeof AgentServiceService>;

/** Request keys as docs/api.md#agent-api names them; only the chat says session_id. */
const AS_NAMED: FieldNamer = (path) => path;
const CHAT_NAMES: FieldNamer = (path) => (path === 'sessionId' ? 'session_id' : path);

export function agentHandlers(deps: AgentDeps): AgentHandlers {
  const { db, auth, ledger, router, pricing, gateway, settings, logger, healthProbes } = deps;
  const skillContext = { db, key: settings.skillCredentialsKey, logger };

  /** Checks the request, finds the acting user's agent record, then does the work on the agent's tables. */
  const acting =
    <Schema extends z.ZodType<{ actor: { userId: string; agentId: string } }>, Response>(
      schema: Schema,
      work: (input: z.output<Schema>, acting: Acting) => Promise<Response>,
      names: FieldNamer = AS_NAMED,
    ) =>
    async (request: unknown): Promise<Response> => {
      const input = parseInput(schema, request, names);
      const actor = await resolveActor(auth, input.actor);
      return requireAgentTables(() => work(input, actor));
    };

  /** The period's quota; a ledger that does not answer leaves it out rather than failing the status. */
  const quotaOf = async ({ agent }: Acting) => {
    try {
      return await periodQuota(ledger, agent);
    } catch (error) {
      logger.warn({ err: error }, 'ledger did not answer: status without the period usage');
      return undefined;
    }
  };

  return {
    getStatus: acting(requests.statusRequest, async ({ include }, actor) => {
      const sections = new Set(include);
      const [quota, messages, skills, logs, health] = await Promise.all([
        quotaOf(actor),
        sections.has('messages') ? recentMessages(db, actor.agent.id, STATUS_RECENT_ITEMS) : [],
        sections.has('skills') ? listSkills(skillContext, actor.agent.id) : [],
        sections.has('logs') ? recentLogs(db, actor.agent.id, STATUS_RECENT_ITEMS) : [],
        sections.has('health') ? checkHealth(healthProbes) : undefined,
      ]);
      return {
        agent: actor.agent,
        quota,
        messages: messages.map(toChatMessage),
        skills: skills.filter((skill) => skill.enabled),
        logs: logs.map(toLogEntry),
        health,
      };
    }),

    chat: acting(
      requests.chatRequest,
      async (input, actor) => {
        const outcome = await chat({ db, gateway, settings, logger }, actor.agent, actor.userId, input);
        return {
          session: toSessionMessage(outcome.session),
          reply: toChatMessage(outcome.reply),
          toolRuns: outcome.toolRuns.map(toChatMessage),
          usage: {
            requestIds: outcome.usage.requestIds,
            model: outcome.usage.model,
            costMicros: outcome.usage.costMicros.toString(),
            priced: outcome.usage.priced,
            calls: outcome.usage.requestIds.length,
          },
        };
      },
      CHAT_NAMES,
    ),

    listSessions: acting(requests.actorOnly, async (_input, { agent }) => ({
      sessions: (await listSessions(db, agent.id)).map(toSessionMessage),
    })),

    createSession: acting(requests.createSessionRequest, async ({ title, category }, { agent }) => ({
      session: toSessionMessage(await createSession(db, agent.id, { title, category })),
    })),

    updateSession: acting(requests.updateSessionRequest, async ({ sessionId, actor: _actor, ...changes }, { agent }) => ({
      session: toSessionMessage(await updateSession(db, agent.id, sessionId, definedOnly(changes))),
    })),

    deleteSession: acting(requests.sessionIdRequest, async ({ sessionId }, { agent }) => ({
      sessionId,
      messagesDeleted: await deleteSession(db, agent.id, sessionId),
    })),

    listSkills: acting(requests.actorOnly, async (_input, { agent }) => {
      const available = await listSkills(skillContext, agent.id);
      return { enabled: available.filter((skill) => skill.enabled), available };
    }),

    setSkillEnabled: acting(requests.skillEnabledRequest, async ({ skill, enabled }, { agent }) => ({
      skill: await setSkillEnabled(skillContext, agent.id, skill, enabled),
    })),

    setSkillCredentials: acting(requests.skillCredentialsRequest, async ({ skill, config }, { agent }) => ({
      skill: await setSkillCredentials(skillContext, agent.id, skill, config),
    })),

    listMemories: acting(requests.actorOnly, async (_input, { agent }) => ({
      memories: (await listMemories(db, agent.id)).map(toMemoryEntry),
    })),

    createMemory: acting(requests.createMemoryRequest, async ({ key, value, category }, { agent }) => {
      const { memory, created } = await rememberEntry(db, agent.id, { key, value, category });
      return { memory: toMemoryEntry(memory), created };
    }),

    getTokenBudget: acting(requests.actorOnly, async (_input, { agent }) => ({ agent, quota: await periodQuota(ledger, agent) })),

    recommendModel: acting(requests.recommendRequest, async ({ message }, { agent }) =>
      recommendModel({ router, pricing, replyMaxTokens: settings.replyMaxTokens }, agent, message),
    ),

    automate: acting(requests.automateRequest, async ({ command, text }, { agent, userId }) => {
      if (command === 'status') return { workflow: undefined, workflows: (await listWorkflows(db, agent.id)).map(toWorkflowMessage) };
      const workflow = await createWorkflow(db, { agentId: agent.id, userId }, command, text);
      return { workflow: toWorkflowMessage(workflow), workflows: [] };
    }),

    updateSettings: acting(requests.updateSettingsRequest, async ({ actor: _actor, ...input }, { agent, userId }) =>
      updateSettings({ db, auth, pricing }, agent, userId, input),
    ),
  };
}

/** The given fields only: an absent one stays as it is. */
function definedOnly<T extends Record<string, unknown>>(fields: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}
