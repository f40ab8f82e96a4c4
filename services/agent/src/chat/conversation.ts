import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import type {
  ChatCompletionContentPart,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { AgentRecord } from '@gateway/proto/gen/gateway/auth/v1/auth';
import type { RouteRequest } from '@gateway/proto/gen/gateway/router/v1/router';
import type { MessageRow } from '../db/tables/messages';
import type { CheckedImage } from './images';

/**
 * The chat-completions requests the agent sends through the gateway, built
 * in one place, so that the token budget's recommendation prices the very
 * request a chat sends, and routes it the way edge will.
 */
export const SYSTEM_PROMPT = [
  "You are the user's personal agent, answering in their chat sessions.",
  'Use the remember tool to store a fact, preference, contact or project detail the user wants kept,',
  'the recall tool to look up what was stored before, and the create_automation tool to schedule work',
  'or reminders the user asks for (describe when in plain words, e.g. "every weekday at 9am" or "in 2 hours").',
  'Answer briefly and plainly.',
].join(' ');

/** The user's turn: text, and the images as `image_url` parts. */
export function userTurn(text: string, images: readonly CheckedImage[] = []): ChatCompletionMessageParam {
  if (images.length === 0) return { role: 'user', content: text };
  const parts: ChatCompletionContentPart[] = [
    { type: 'text', text },
    ...images.map((image): ChatCompletionContentPart => ({ type: 'image_url', image_url: { url: image.dataUrl } })),
  ];
  return { role: 'user', content: parts };
}

/** Earlier turns of the session: what was said, not the tool runs (their results live in the answers that followed). */
export function historyTurns(history: readonly MessageRow[]): ChatCompletionMessageParam[] {
  return history.flatMap((message): ChatCompletionMessageParam[] => {
    if (message.role === 'user') return [{ role: 'user', content: message.content }];
    if (message.role === 'assistant') return [{ role: 'assistant', content: message.content }];
    return [];
  });
}

export interface ChatRequestParts {
  agent: Pick<AgentRecord, 'aiModel'>;
  messages: ChatCompletionMessageParam[];
  tools: readonly ChatCompletionTool[];
  replyMaxTokens: number;
  /** The last round forbids further tool calls, so the model answers in words. */
  finalRound?: boolean;
}

/** The body of one gateway call: the agent's model (`auto` or its ai_model), the conversation, the tools, the reply cap. */
export function chatBody({ agent, messages, tools, replyMaxTokens, finalRound = false }: ChatRequestParts): ChatCompletionCreateParamsNonStreaming {
  return {
    model: agent.aiModel,
    messages: [{ role: 'system', content: SYSTEM_PROMPT }, ...messages],
    ...(tools.length > 0 ? { tools: [...tools] } : {}),
    ...(tools.length > 0 && finalRound ? { tool_choice: 'none' as const } : {}),
    max_completion_tokens: replyMaxTokens,
  };
}

/** A message's text as the router and the provider count it: string content, or its text parts joined by newlines. */
function textOf(message: ChatCompletionMessageParam): string {
  const { content } = message;
  if (typeof content === 'string') return content;
  if (!content) return '';
  return content
    .map((part) => (part.type === 'text' ? part.text : ''))
    .filter(Boolean)
    .join('\n');
}

/**
 * What edge asks the router for this body (edge's routeRequestOf): the
 * agent's model is both the requested and the credential's model, because
 * the platform agent secret carries the record's ai_model.
 */
export function routeRequestFor(body: ChatCompletionCreateParamsNonStreaming, agent: Pick<AgentRecord, 'aiModel' | 'planTier'>): RouteRequest {
  return {
    requestedModel: body.model,
    credentialModel: agent.aiModel,
    planTier: agent.planTier,
    messages: body.messages.map((message) => ({ role: message.role, content: textOf(message) })),
    toolCount: body.tools?.length ?? 0,
    maxOutputTokens: body.max_completion_tokens ?? body.max_tokens ?? 0,
    parameters: Object.keys(body),
  };
}

/**
 * Prompt tokens by OpenAI's published counting recipe (o200k_base): 3 to
 * prime the reply, then per message 3 + its role + its text, plus the JSON
 * of the tools. Images are not counted (providers price them separately,
 * and the gateway prices text tokens).
 */
export function promptTokens(body: ChatCompletionCreateParamsNonStreaming): number {
  const count = (text: string) => (text === '' ? 0 : countTokens(text, { disallowedSpecial: new Set() }));
  let total = 3;
  for (const message of body.messages) total += 3 + count(message.role) + count(textOf(message));
  if (body.tools && body.tools.length > 0) total += count(JSON.stringify(body.tools));
  return total;
}
