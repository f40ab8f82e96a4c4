/**
 * Deterministic answers: the same model, prompt, seed and choice index always
 * give the same text, and different prompts usually give different texts.
 * A run of 2 to 6 sentences is picked from a fixed bank by a hash of the input.
 */
const SENTENCES = [
  'The short answer is that it depends on the constraints you care about most.',
  'Start with the simplest version that works, then measure before changing anything.',
  'A cache helps only when the same question is asked more than once.',
  'Every network call can fail, so decide early what a partial failure should look like.',
  'Writing the invariant down first makes the implementation much easier to check.',
  'Most latency hides in the places nobody thought to measure.',
  'Small functions with clear names are easier to test than clever ones.',
  'The data model usually outlives the code that was written around it.',
  'If two components disagree about time, use UTC everywhere and convert at the edges.',
  'Retries need a budget, otherwise they turn a slowdown into an outage.',
  'A good error message names the field, the value it got and the values it accepts.',
  'Idempotent operations make recovery after a crash a matter of running them again.',
  'Batching trades a little latency for a lot of throughput.',
  'Counting in integers avoids the rounding surprises of floating point money.',
  'An index turns a scan into a lookup, at the price of slower writes.',
  'Back pressure is better than an unbounded queue.',
  'Logs should explain what happened without revealing any secret.',
  'A test that cannot fail does not prove anything.',
  'Keep the hot path free of work that grows with history.',
  'Configuration belongs in the environment, checked once at start.',
  'Two careful reads of the specification save a week of rework.',
  'Streaming lets the first words arrive long before the last ones are ready.',
  'The cheapest model that answers well is usually the right one.',
  'Observability is the difference between guessing and knowing.',
  'Prefer explicit deadlines to hoping the other side answers quickly.',
  'A connection pool pays the setup cost once and reuses it many times.',
  'Document the decision and the reason, because the reason is what gets forgotten.',
  'Deterministic output makes a failing test reproducible.',
  'Security reviews go faster when secrets never leave the process that needs them.',
  'When in doubt, return less data and let the caller ask for more.',
  'Graceful shutdown finishes the work in flight before the process exits.',
  'Measure twice, optimize once, and keep the benchmark honest.',
] as const;

/** FNV-1a, 32 bits: fast, stable across runs and platforms. */
export function hash32(text: string, seed = 0x811c9dc5): number {
  let hash = seed >>> 0;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

export interface AnswerKey {
  model: string;
  prompt: string;
  seed: number | undefined;
  choiceIndex: number;
}

export function answerText({ model, prompt, seed, choiceIndex }: AnswerKey): string {
  const hash = hash32(`${model}\u0000${seed ?? ''}\u0000${choiceIndex}\u0000${prompt}`);
  const count = 2 + (hash % 5);
  const start = (hash >>> 3) % SENTENCES.length;
  // An odd stride visits distinct sentences (the bank has an even length).
  const stride = 2 * ((hash >>> 11) % 7) + 1;
  const picked: string[] = [];
  for (let step = 0; step < count; step += 1) picked.push(SENTENCES[(start + step * stride) % SENTENCES.length] as string);
  return picked.join(' ');
}

/** Cuts the text before the first stop sequence, as a provider does. */
export function applyStop(text: string, stop: string | readonly string[] | null | undefined): { text: string; stopped: boolean } {
  if (stop === null || stop === undefined) return { text, stopped: false };
  let cut = -1;
  for (const sequence of typeof stop === 'string' ? [stop] : stop) {
    if (sequence.length === 0) continue;
    const at = text.indexOf(sequence);
    if (at >= 0 && (cut < 0 || at < cut)) cut = at;
  }
  return cut < 0 ? { text, stopped: false } : { text: text.slice(0, cut), stopped: true };
}
