import type { Kysely } from 'kysely';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { toDomainError } from '@gateway/lib/errors';
import type { Logger } from '@gateway/lib/logging';
import type { AgentRecord } from '@gateway/proto/gen/gateway/auth/v1/auth';
import type { AgentSettings } from '../config';
import type { AgentDatabase } from '../db/schema';
import type { MessageRow } from '../db/tables/messages';
import { writeLog } from '../logs/logs';
import { appendMessage, sessionHistory } from '../sessions/messages';
import { defaultSession, findSession, type SessionWithCount } from '../sessions/sessions';
import { chatBody, historyTurns, userTurn } from './conversation';
import type { GatewayAnswer, GatewayClient } from './gateway';
import { checkImages } from './images';
import { AGENT_TOOLS, runToolCall } from './tools';

export interface ChatDeps {
  db: Kysely<AgentDatabase>;
  gateway: GatewayClient;
  settings: AgentSettings;
  logger: Logger;
}

export interface ChatInput {
  message: string;
  /** null: the default session. */
  sessionId: string | null;
  images: readonly string[];
}

/** What the gateway calls of one chat cost, summed. */
export interface ChatUsage {
  requestIds: string[];
  model: string;
  costMicros: bigint;
  /** False when any call was unpriced: the sum is then a floor, not the cost. */
  priced: boolean;
}

export interface ChatOutcome {
  session: SessionWithCount;
  reply: MessageRow;
  toolRuns: MessageRow[];
  usage: ChatUsage;
}

function addUsage(usage: ChatUsage, answer: GatewayAnswer): ChatUsage {
  return {
    requestIds: [...usage.requestIds, answer.requestId],
    model: answer.model,
    costMicros: usage.costMicros + (answer.costMicros ?? 0n),
    priced: usage.priced && answer.costMicros !== undefined,
  };
}

/**
 * One chat turn (docs/api.md#agent-api): images checked before anything is stored or
 * sent; the user's message stored in its session; then up to
 * TOOL_ROUNDS_MAX gateway calls, running the tools the model calls between
 * them and recording each run as a `tool` message; the last round forbids
 * tools, so the turn always ends in words. A failed gateway call keeps
 * what was stored, logs `chat_failed`, and reaches the caller as the
 * gateway's error class.
 */
export async function chat(deps: ChatDeps, agent: AgentRecord, userId: string, input: ChatInput): Promise<ChatOutcome> {
  const { db, gateway, settings } = deps;
  const images = checkImages(input.images, settings.images);
  const session = input.sessionId === null ? await defaultSession(db, agent.id) : await findSession(db, agent.id, input.sessionId);
  const history = await sessionHistory(db, session.id, settings.historyMessages);
  await appendMessage(db, {
    sessionId: session.id,
    agentId: agent.id,
    role: 'user',
    content: input.message,
    images: images.map(({ media_type, bytes, sha256 }) => ({ media_type, bytes, sha256 })),
  });

  const messages: ChatCompletionMessageParam[] = [...historyTurns(history), userTurn(input.message, images)];
  const toolRuns: MessageRow[] = [];
  let usage: ChatUsage = { requestIds: [], model: '', costMicros: 0n, priced: true };
  for (let round = 1; ; round += 1) {
    const finalRound = round >= settings.toolRoundsMax;
    let answer: GatewayAnswer;
    try {
      answer = await gateway.complete(agent.id, chatBody({ agent, messages, tools: AGENT_TOOLS, replyMaxTokens: settings.replyMaxTokens, finalRound }));
    } catch (error) {
      const failure = toDomainError(error);
      await writeLog(db, agent.id, 'chat_failed', { session_id: session.id, error_type: failure.errorClass, round });
      throw failure;
    }
    usage = addUsage(usage, answer);
    const calls = (answer.message.tool_calls ?? []).filter((call) => call.type === 'function');
    if (calls.length === 0 || finalRound) {
      const reply = await appendMessage(db, {
        sessionId: session.id,
        agentId: agent.id,
        role: 'assistant',
        content: answer.message.content ?? '',
        requestId: answer.requestId,
      });
      return { session: await findSession(db, agent.id, session.id), reply, toolRuns, usage };
    }
    messages.push({ role: 'assistant', content: answer.message.content, tool_calls: calls });
    for (const call of calls) {
      const outcome = await runToolCall({ db, agentId: agent.id, userId }, call);
      toolRuns.push(
        await appendMessage(db, {
          sessionId: session.id,
          agentId: agent.id,
          role: 'tool',
          content: outcome.summary,
          requestId: answer.requestId,
          tool: { name: outcome.name, arguments: outcome.arguments, result: outcome.result, ok: outcome.ok },
        }),
      );
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(outcome.result) });
    }
  }
}
