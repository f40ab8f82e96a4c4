import { readConversation, type ScoredMessage } from './conversation';
import { scanForCues, type CueFindings } from './scanner';
import { pointsAt, type Steps } from './steps';
import { tierForScore, type ScoredTier } from './tiers';

/** What the score reads from a chat-completion request (RouteRequest has these fields). */
export interface ScoringInput {
  messages: readonly ScoredMessage[];
  /** Tool (function) definitions offered to the model. */
  toolCount: number;
  /** max_tokens or max_completion_tokens; 0 when unset. */
  maxOutputTokens: number;
}

export type SignalName = 'length' | 'turns' | 'system_prompt' | 'code' | 'math' | 'reasoning' | 'tools' | 'output';

export interface ScoreSignal {
  name: SignalName;
  points: number;
}

export interface Score {
  /** Sum of the signals' points, clamped to 0..100. */
  complexity: number;
  tier: ScoredTier;
  /** Every signal in a fixed order, zero points included, so a score always explains itself. */
  signals: ScoreSignal[];
}

export const MAX_COMPLEXITY = 100;

/**
 * The weights. services/router/README.md documents each one with worked
 * examples; change them together.
 */
export const WEIGHTS = {
  /** Characters in the window: about 3 points per doubling from 200 on (diminishing returns). */
  length: [
    [200, 3],
    [500, 6],
    [1_000, 9],
    [2_000, 12],
    [4_000, 15],
    [8_000, 18],
    [16_000, 21],
    [32_000, 25],
  ] satisfies Steps,
  /** Per user turn after the first. */
  turnPoints: 2,
  maxTurnPoints: 10,
  systemPrompt: [
    [1_000, 3],
    [4_000, 6],
    [16_000, 10],
  ] satisfies Steps,
  code: { vocabulary: 8, oneSyntaxCue: 8, syntax: 15, fence: 20 },
  /** By distinct kinds of math content (LaTeX, equations, vocabulary, proof): none, 1, 2, 3 or more. */
  math: [0, 12, 24, 36],
  /** Per distinct reasoning cue, up to three. */
  reasoningPerCue: 10,
  maxReasoningCues: 3,
  /** First tool, and each further one. */
  tools: { first: 6, further: 2, max: 12 },
  output: [
    [1_000, 4],
    [4_000, 8],
    [16_000, 12],
  ] satisfies Steps,
} as const;

/** Number of set bits, capped: distinct cues beyond `cap` earn nothing more. */
function distinct(bits: number, cap: number): number {
  let count = 0;
  for (let rest = bits; rest !== 0 && count < cap; rest &= rest - 1) count += 1;
  return count;
}

function codePoints({ fence, codeShapes, codeVocabulary }: CueFindings): number {
  if (fence) return WEIGHTS.code.fence;
  const shapes = distinct(codeShapes, 2);
  if (shapes >= 2) return WEIGHTS.code.syntax;
  if (shapes === 1) return WEIGHTS.code.oneSyntaxCue;
  return codeVocabulary ? WEIGHTS.code.vocabulary : 0;
}

function mathPoints({ mathKinds }: CueFindings): number {
  return WEIGHTS.math[distinct(mathKinds, WEIGHTS.math.length - 1)] ?? 0;
}

function reasoningPoints({ reasoning }: CueFindings): number {
  return distinct(reasoning, WEIGHTS.maxReasoningCues) * WEIGHTS.reasoningPerCue;
}

function toolPoints(toolCount: number): number {
  if (toolCount <= 0) return 0;
  return Math.min(WEIGHTS.tools.max, WEIGHTS.tools.first + (toolCount - 1) * WEIGHTS.tools.further);
}

/**
 * A deterministic, explainable complexity score from 0 to 100: the sum of
 * the signals' points, clamped. Pure and bounded: only the last user message
 * (cut to its head and tail) is scanned, in one pass, and only a window of
 * recent messages is counted.
 */
export function scoreRequest({ messages, toolCount, maxOutputTokens }: ScoringInput): Score {
  const conversation = readConversation(messages);
  const cues = scanForCues(conversation.scanText);
  const signals: ScoreSignal[] = [
    { name: 'length', points: pointsAt(conversation.windowChars, WEIGHTS.length) },
    { name: 'turns', points: Math.min(WEIGHTS.maxTurnPoints, Math.max(0, conversation.userTurns - 1) * WEIGHTS.turnPoints) },
    { name: 'system_prompt', points: pointsAt(conversation.systemChars, WEIGHTS.systemPrompt) },
    { name: 'code', points: codePoints(cues) },
    { name: 'math', points: mathPoints(cues) },
    { name: 'reasoning', points: reasoningPoints(cues) },
    { name: 'tools', points: toolPoints(toolCount) },
    { name: 'output', points: pointsAt(maxOutputTokens, WEIGHTS.output) },
  ];
  let total = 0;
  for (const signal of signals) total += signal.points;
  const complexity = Math.min(MAX_COMPLEXITY, total);
  return { complexity, tier: tierForScore(complexity), signals };
}
