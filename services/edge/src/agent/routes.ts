import type { Express, Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import { DomainError } from '@gateway/lib/errors';
import { StatusSection, type Actor } from '@gateway/proto/gen/gateway/agent/v1/agent';
import type { EdgeDeps } from '../deps';
import { sessionOf } from '../http/locals';
import { parseInput } from '../http/validation';
import { requireSession } from '../identity/session';
import * as bodies from './bodies';
import {
  agentRecordJson,
  agentStatusJson,
  changeJson,
  healthJson,
  logJson,
  memoryJson,
  messageJson,
  quotaJson,
  recommendationJson,
  sessionJson,
  skillJson,
  usdOrNull,
  workflowJson,
} from './json';

/**
 * The agent API (docs/api.md#agent-api), unversioned (docs/api.md#versioning), for a signed-in user: the
 * session cookie or `Authorization: Bearer <access token>`; an API key is a
 * 401 saying a session is needed. Each route checks its input, then asks the
 * agent service on behalf of the user; the agent service finds the user's
 * agent record (404 when there is none).
 */
export const AGENT_BASE_PATH = '/api/agent';

/** Names one of the user's agent records when they own several; absent: the newest. */
export const AGENT_ID_HEADER = 'x-service-agent-id';
const agentIdHeader = z.guid().optional();

function actorOf(req: Request, res: Response): Actor {
  const header = req.headers[AGENT_ID_HEADER];
  // An empty header is no header: the newest record answers.
  const parsed = agentIdHeader.safeParse(typeof header === 'string' && header.trim() !== '' ? header.trim() : undefined);
  if (!parsed.success) {
    throw new DomainError('validation', `Invalid request: header "X-Service-Agent-Id" must be the id (a UUID) of one of your agent records.`, {
      field: AGENT_ID_HEADER,
    });
  }
  return { userId: sessionOf(res).userId, agentId: parsed.data ?? '' };
}

export function registerAgentRoutes(app: Express, { agent, settings }: EdgeDeps): void {
  const session = requireSession(settings.accessTokenSecret);
  const route = (method: 'get' | 'post' | 'put' | 'patch' | 'delete', path: string, handler: RequestHandler) =>
    app[method](`${AGENT_BASE_PATH}${path}`, session, handler);

  route('get', '/status', async (req, res) => {
    const { include } = parseInput(bodies.statusQuery, req.query, 'query');
    const status = await agent.getStatus({ actor: actorOf(req, res), include });
    if (!status.agent) throw new DomainError('internal', 'Internal error. Report it with the request id.', { internalReason: 'status without agent' });
    const asked = new Set<StatusSection>(include);
    res.json({
      agent: agentStatusJson(status.agent, status.quota),
      quota: quotaJson(status.quota),
      ...(asked.has(StatusSection.STATUS_SECTION_MESSAGES) ? { messages: status.messages.map(messageJson) } : {}),
      ...(asked.has(StatusSection.STATUS_SECTION_SKILLS) ? { skills: status.skills.map(skillJson) } : {}),
      ...(asked.has(StatusSection.STATUS_SECTION_LOGS) ? { logs: status.logs.map(logJson) } : {}),
      ...(asked.has(StatusSection.STATUS_SECTION_HEALTH) && status.health ? { health: healthJson(status.health) } : {}),
    });
  });

  route('post', '/chat', async (req, res) => {
    const body = parseInput(bodies.chatBody, req.body, 'body');
    const answer = await agent.chat(
      { actor: actorOf(req, res), message: body.message, sessionId: body.session_id ?? '', images: body.images ?? [] },
      settings.agentChatDeadlineMs === undefined ? {} : { deadlineMs: settings.agentChatDeadlineMs },
    );
    res.json({
      session_id: answer.session?.sessionId ?? null,
      session: answer.session ? sessionJson(answer.session) : null,
      reply: answer.reply ? messageJson(answer.reply) : null,
      tool_runs: answer.toolRuns.map(messageJson),
      usage: {
        calls: answer.usage?.calls ?? 0,
        request_ids: answer.usage?.requestIds ?? [],
        model: answer.usage?.model ?? null,
        cost_usd: answer.usage ? usdOrNull(answer.usage.priced, answer.usage.costMicros) : null,
      },
    });
  });

  route('get', '/sessions', async (_req, res) => {
    const { sessions } = await agent.listSessions({ actor: actorOf(_req, res) });
    res.json({ sessions: sessions.map(sessionJson) });
  });

  route('post', '/sessions', async (req, res) => {
    const body = parseInput(bodies.createSessionBody, req.body, 'body');
    const { session: created } = await agent.createSession({ actor: actorOf(req, res), title: body.title, category: body.category ?? 0 });
    res.status(201).json({ session: created ? sessionJson(created) : null });
  });

  route('patch', '/sessions', async (req, res) => {
    const body = parseInput(bodies.updateSessionBody, req.body, 'body');
    const { session: updated } = await agent.updateSession({
      actor: actorOf(req, res),
      sessionId: body.sessionId,
      title: body.title,
      category: body.category ?? 0,
      status: body.status ?? 0,
      // null asks to remove the icon, which the agent service reads as empty.
      icon: body.icon === null ? '' : body.icon,
      pinned: body.pinned,
    });
    res.json({ session: updated ? sessionJson(updated) : null });
  });

  route('delete', '/sessions', async (req, res) => {
    const body = parseInput(bodies.deleteSessionBody, req.body, 'body');
    const deleted = await agent.deleteSession({ actor: actorOf(req, res), sessionId: body.sessionId });
    res.json({ deleted: true, sessionId: deleted.sessionId, messages_deleted: deleted.messagesDeleted });
  });

  route('get', '/skills', async (req, res) => {
    const { enabled, available } = await agent.listSkills({ actor: actorOf(req, res) });
    res.json({ skills: enabled.map(skillJson), available: available.map(skillJson) });
  });

  route('post', '/skills', async (req, res) => {
    const body = parseInput(bodies.enableSkillBody, req.body, 'body');
    const { skill } = await agent.setSkillEnabled({ actor: actorOf(req, res), skill: body.skill, enabled: body.enabled });
    res.json({ skill: skill ? skillJson(skill) : null });
  });

  route('put', '/skills', async (req, res) => {
    const body = parseInput(bodies.skillCredentialsBody, req.body, 'body');
    const { skill } = await agent.setSkillCredentials({ actor: actorOf(req, res), skill: body.skill, config: body.config });
    res.json({ skill: skill ? skillJson(skill) : null });
  });

  route('get', '/memory', async (req, res) => {
    const { memories } = await agent.listMemories({ actor: actorOf(req, res) });
    res.json({ memories: memories.map(memoryJson) });
  });

  route('post', '/memory', async (req, res) => {
    const body = parseInput(bodies.createMemoryBody, req.body, 'body');
    const { memory, created } = await agent.createMemory({ actor: actorOf(req, res), ...body });
    res.status(created ? 201 : 200).json({ memory: memory ? memoryJson(memory) : null, created });
  });

  route('get', '/token-budget', async (req, res) => {
    const budget = await agent.getTokenBudget({ actor: actorOf(req, res) });
    if (!budget.agent) throw new DomainError('internal', 'Internal error. Report it with the request id.', { internalReason: 'budget without agent' });
    res.json({ agent: agentRecordJson(budget.agent), quota: quotaJson(budget.quota) });
  });

  route('post', '/token-budget', async (req, res) => {
    const body = parseInput(bodies.recommendBody, req.body, 'body');
    res.json(recommendationJson(await agent.recommendModel({ actor: actorOf(req, res), message: body.message })));
  });

  route('post', '/chat-automate', async (req, res) => {
    const body = parseInput(bodies.automateBody, req.body, 'body');
    const answer = await agent.automate({ actor: actorOf(req, res), command: body.command, text: body.text ?? '' });
    if (answer.workflow) res.status(201).json({ workflow: workflowJson(answer.workflow) });
    else res.json({ workflows: answer.workflows.map(workflowJson) });
  });

  route('post', '/update', async (req, res) => {
    const body = parseInput(bodies.updateSettingsBody, req.body, 'body');
    const answer = await agent.updateSettings({
      actor: actorOf(req, res),
      aiModel: body.aiModel,
      messengerType: body.messengerType ?? 0,
      serverTier: body.serverTier ?? 0,
      serverRegion: body.serverRegion ?? 0,
      aiApiKey: body.aiApiKey,
    });
    if (!answer.agent) throw new DomainError('internal', 'Internal error. Report it with the request id.', { internalReason: 'update without agent' });
    res.json({
      agent: agentRecordJson(answer.agent),
      changes: answer.changes.map(changeJson),
      note:
        answer.changes.length === 0
          ? 'Nothing changed: every given value was already set.'
          : 'Settings recorded on the agent record. No virtual machine stands behind it any more, so nothing is rebuilt.',
    });
  });
}
