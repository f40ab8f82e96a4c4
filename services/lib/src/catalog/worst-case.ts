import type { MicroUsd } from '../money';
import type { CatalogModel } from './catalog';

/**
 * The most a chat completion can cost before it runs: what admission holds
 * against an allowance, so that no number of simultaneous requests can
 * spend past it.
 *
 * Input: every token a tokenizer produces from text covers at least one
 * byte of its UTF-8 encoding (byte-level BPE, SentencePiece with byte
 * fallback), so the UTF-8 bytes of the whole body as sent (message text,
 * names, tool calls, tool definitions, schemas, and the JSON around them)
 * bound the tokens of everything in it that is text. The chat format adds
 * a few framing tokens per message and to prime the reply (OpenAI counts 3
 * and 3, plus 1 per name); the allowances below are well above those.
 * Parts whose tokens do not follow from their bytes (an image or a file by
 * URL or id, audio) leave only the model's context window as the bound,
 * which also caps the rest, since a provider refuses a longer prompt.
 *
 * Output: the request's own limit (`max_completion_tokens`, else
 * `max_tokens`), never above the model's output maximum, times `n` choices.
 */
export const FRAMING_TOKENS_PER_MESSAGE = 16;
export const FRAMING_TOKENS_PER_REQUEST = 16;

/** The fields of an OpenAI chat completions body the bound reads; the rest only counts as bytes. */
export interface ChatBodyShape {
  messages: readonly unknown[];
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  n?: number | null;
}

export interface WorstCase {
  inputTokens: number;
  outputTokens: number;
  /** Rounded up: never below the cost of any usage within the bounds. */
  costMicros: MicroUsd;
}

export function inputTokenBound(body: ChatBodyShape, model: Pick<CatalogModel, 'contextWindow'>): number {
  if (body.messages.some(hasPartBeyondText)) return model.contextWindow;
  const bytes = Buffer.byteLength(JSON.stringify(body), 'utf8');
  const bound = bytes + FRAMING_TOKENS_PER_MESSAGE * body.messages.length + FRAMING_TOKENS_PER_REQUEST;
  return Math.min(bound, model.contextWindow);
}

export function outputTokenBound(body: ChatBodyShape, model: Pick<CatalogModel, 'maxOutputTokens'>): number {
  const requested = body.max_completion_tokens ?? body.max_tokens ?? model.maxOutputTokens;
  return Math.min(requested, model.maxOutputTokens) * (body.n ?? 1);
}

export function worstCaseOf(body: ChatBodyShape, model: CatalogModel): WorstCase {
  const inputTokens = inputTokenBound(body, model);
  const outputTokens = outputTokenBound(body, model);
  const timesMillion = BigInt(inputTokens) * model.inputMicrosPerMillion + BigInt(outputTokens) * model.outputMicrosPerMillion;
  return { inputTokens, outputTokens, costMicros: (timesMillion + 999_999n) / 1_000_000n };
}

const TEXT_PARTS: ReadonlySet<unknown> = new Set(['text', 'refusal']);

function hasPartBeyondText(message: unknown): boolean {
  if (typeof message !== 'object' || message === null) return false;
  const content = (message as { content?: unknown }).content;
  if (!Array.isArray(content)) return false;
  return content.some((part: unknown) => typeof part !== 'object' || part === null || !TEXT_PARTS.has((part as { type?: unknown }).type));
}
