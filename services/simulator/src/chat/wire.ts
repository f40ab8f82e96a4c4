import type { Choice, Completion } from './completion';

/** The chat-completions wire format: a JSON body, or SSE chunks ending in `[DONE]`. */
export const SYSTEM_FINGERPRINT = 'fp_simulator';
const WORDS_PER_CHUNK = 4;
const ARGUMENT_CHUNKS = 3;
const JSON_CHARACTERS_PER_CHUNK = 16;

function usageBody(completion: Completion) {
  return {
    ...completion.usage,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

function wireToolCalls(choice: Choice) {
  return choice.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }));
}

export function completionBody(completion: Completion) {
  return {
    id: completion.id,
    object: 'chat.completion',
    created: completion.created,
    model: completion.model,
    choices: completion.choices.map((choice) => ({
      index: choice.index,
      message: {
        role: 'assistant',
        content: choice.content,
        refusal: null,
        ...(choice.toolCalls.length > 0 ? { tool_calls: wireToolCalls(choice) } : {}),
        annotations: [],
      },
      logprobs: null,
      finish_reason: choice.finishReason,
    })),
    usage: usageBody(completion),
    service_tier: 'default',
    system_fingerprint: SYSTEM_FINGERPRINT,
  };
}

/** Splits text after every few words; the pieces concatenate back to the text exactly. */
export function splitWords(text: string, wordsPerPiece = WORDS_PER_CHUNK): string[] {
  const pieces: string[] = [];
  let start = 0;
  let words = 0;
  for (let index = 1; index < text.length; index += 1) {
    if (text[index - 1] === ' ' && text[index] !== ' ' && ++words === wordsPerPiece) {
      pieces.push(text.slice(start, index));
      start = index;
      words = 0;
    }
  }
  if (start < text.length) pieces.push(text.slice(start));
  return pieces;
}

function splitEvenly(text: string, parts: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / parts));
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces;
}

type Delta = Record<string, unknown>;

/**
 * The deltas of one choice: the role first, then the content a few words at a
 * time (JSON content a few characters at a time; tool calls: each call's name,
 * then its arguments in pieces), then the finish.
 */
function choiceDeltas(choice: Choice): Array<{ delta: Delta; finish: string | null }> {
  const deltas: Array<{ delta: Delta; finish: string | null }> = [];
  if (choice.toolCalls.length === 0) {
    deltas.push({ delta: { role: 'assistant', content: '', refusal: null }, finish: null });
    const content = choice.content ?? '';
    const pieces = choice.json ? splitEvenly(content, Math.ceil(content.length / JSON_CHARACTERS_PER_CHUNK)) : splitWords(content);
    for (const piece of pieces) deltas.push({ delta: { content: piece }, finish: null });
  } else {
    choice.toolCalls.forEach((call, index) => {
      const start = { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } };
      deltas.push({ delta: index === 0 ? { role: 'assistant', content: null, tool_calls: [start] } : { tool_calls: [start] }, finish: null });
      for (const piece of splitEvenly(call.arguments, ARGUMENT_CHUNKS)) {
        deltas.push({ delta: { tool_calls: [{ index, function: { arguments: piece } }] }, finish: null });
      }
    });
  }
  deltas.push({ delta: {}, finish: choice.finishReason });
  return deltas;
}

function frame(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

export const DONE_FRAME = 'data: [DONE]\n\n';

/**
 * Every SSE frame of a streamed answer, in order. With include_usage, every
 * chunk carries `usage: null` and a last chunk with no choices carries the usage.
 */
export function streamFrames(completion: Completion, includeUsage: boolean): string[] {
  const envelope = {
    id: completion.id,
    object: 'chat.completion.chunk',
    created: completion.created,
    model: completion.model,
    service_tier: 'default',
    system_fingerprint: SYSTEM_FINGERPRINT,
  };
  const frames: string[] = [];
  for (const choice of completion.choices) {
    for (const { delta, finish } of choiceDeltas(choice)) {
      const chunk = { ...envelope, choices: [{ index: choice.index, delta, logprobs: null, finish_reason: finish }] };
      frames.push(frame(includeUsage ? { ...chunk, usage: null } : chunk));
    }
  }
  if (includeUsage) frames.push(frame({ ...envelope, choices: [], usage: usageBody(completion) }));
  frames.push(DONE_FRAME);
  return frames;
}
