import { countTokens, decode, encode } from 'gpt-tokenizer/encoding/o200k_base';
import { messageText, type ChatRequest } from './request';

/**
 * Real token counts with the o200k_base encoding (the GPT-4o / GPT-4.1 / o-series
 * vocabulary), so the usage the gateway prices is the usage a provider would report.
 *
 * Text that looks like a special token (`<|endoftext|>`) is counted as plain text,
 * as a provider does with user content.
 */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * Counting is the simulator's main per-request cost, and load tests send the same
 * few prompts again and again: remember recent counts (oldest forgotten first) of
 * texts small enough that the memory stays bounded.
 */
const MEMO_ENTRIES = 4096;
const MEMO_MAX_TEXT_LENGTH = 16_384;
const memo = new Map<string, number>();

/**
 * The encoder's byte-pair merging costs the square of a word's length, so one
 * long run without spaces (a megabyte of one character) would stall the process
 * for minutes. Text is therefore encoded in pieces of at most this many
 * characters, which makes the cost linear in the text's length.
 */
export const MAX_PIECE_LENGTH = 512;

const isWhitespace = (char: string | undefined) => char !== undefined && /\s/.test(char);

/**
 * Where the piece starting at `start` ends. Preferably just before a space that
 * follows a non-space: the encoder starts a word there anyway, so the counts are
 * exactly those of the whole text. A word longer than a piece is cut (never
 * inside a surrogate pair), which can change its count by a token per cut.
 */
function pieceEnd(text: string, start: number): number {
  const limit = start + MAX_PIECE_LENGTH;
  if (limit >= text.length) return text.length;
  for (let cut = limit; cut > start + 1; cut -= 1) {
    if (text[cut] === ' ' && !isWhitespace(text[cut - 1])) return cut;
  }
  const code = text.charCodeAt(limit);
  return code >= 0xdc00 && code <= 0xdfff ? limit - 1 : limit;
}

/** `text` cut into consecutive pieces of at most MAX_PIECE_LENGTH characters. */
export function* textPieces(text: string): Generator<string> {
  for (let start = 0; start < text.length; ) {
    const end = pieceEnd(text, start);
    yield text.slice(start, end);
    start = end;
  }
}

export function countTextTokens(text: string): number {
  if (text.length === 0) return 0;
  const known = memo.get(text);
  if (known !== undefined) return known;
  let count = 0;
  for (const piece of textPieces(text)) count += countTokens(piece, PLAIN_TEXT);
  if (text.length > MEMO_MAX_TEXT_LENGTH) return count;
  if (memo.size >= MEMO_ENTRIES) memo.delete(memo.keys().next().value as string);
  memo.set(text, count);
  return count;
}

/** The first `limit` tokens of `text`, as text whose own count is at most `limit`. */
export function truncateToTokens(text: string, limit: number): { text: string; tokens: number } {
  const tokens = [...textPieces(text)].flatMap((piece) => encode(piece, PLAIN_TEXT));
  if (tokens.length <= limit) return { text, tokens: tokens.length };
  // Decoding a prefix can re-encode differently at the cut; shorten until it fits.
  for (let keep = limit; keep > 0; keep -= 1) {
    const prefix = decode(tokens.slice(0, keep));
    const count = countTextTokens(prefix);
    if (count <= limit) return { text: prefix, tokens: count };
  }
  return { text: '', tokens: 0 };
}

/** Per-message framing of the chat format (OpenAI's published counting recipe). */
export const TOKENS_PER_MESSAGE = 3;
export const TOKENS_PER_NAME = 1;
/** Every reply is primed with `<|start|>assistant<|message|>`. */
export const REPLY_PRIMING_TOKENS = 3;

/**
 * prompt_tokens = 3 (reply priming)
 *   + for each message: 3 + tokens(role) + tokens(content text) [+ 1 + tokens(name)]
 *     [+ tokens(name) + tokens(arguments) for each tool call it carries]
 *   + tokens(JSON of the `tools` array), when tools are offered.
 * Images and audio parts are not counted.
 */
export function countPromptTokens(request: ChatRequest): number {
  let total = REPLY_PRIMING_TOKENS;
  for (const message of request.messages) {
    total += TOKENS_PER_MESSAGE + countTextTokens(message.role) + countTextTokens(messageText(message));
    if (message.name !== undefined) total += TOKENS_PER_NAME + countTextTokens(message.name);
    for (const call of message.tool_calls ?? []) total += countToolCallTokens(call.function.name, call.function.arguments);
  }
  if (request.tools !== undefined && request.tools.length > 0) total += countTextTokens(JSON.stringify(request.tools));
  return total;
}

/** A tool call costs the tokens of its function name plus those of its JSON arguments. */
export function countToolCallTokens(name: string, argumentsJson: string): number {
  return countTextTokens(name) + countTextTokens(argumentsJson);
}
