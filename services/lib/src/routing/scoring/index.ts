export { scoreRequest, WEIGHTS, MAX_COMPLEXITY, type Score, type ScoreSignal, type ScoringInput, type SignalName } from './score';
export { SCORED_TIERS, TIER_THRESHOLDS, tierForScore, type ScoredTier } from './tiers';
export { WINDOW_MESSAGES, SCAN_HEAD_CHARS, SCAN_TAIL_CHARS, MAX_LEADING_SYSTEM_MESSAGES, type ScoredMessage } from './conversation';
