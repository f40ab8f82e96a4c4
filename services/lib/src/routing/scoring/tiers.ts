/**
 * The tiers a complexity score falls into, from the simplest to the most
 * capable, and the score at which each one starts. The catalog's `tiers` must
 * be exactly these names in this order (checked when the router starts).
 */
export const SCORED_TIERS = ['simple', 'standard', 'complex', 'reasoning'] as const;
export type ScoredTier = (typeof SCORED_TIERS)[number];

/** A score of `from` or more, and below the next tier's `from`, is this tier. */
export const TIER_THRESHOLDS: ReadonlyArray<{ tier: ScoredTier; from: number }> = [
  { tier: 'simple', from: 0 },
  { tier: 'standard', from: 25 },
  { tier: 'complex', from: 50 },
  { tier: 'reasoning', from: 75 },
];

export function tierForScore(score: number): ScoredTier {
  let tier: ScoredTier = 'simple';
  for (const threshold of TIER_THRESHOLDS) if (score >= threshold.from) tier = threshold.tier;
  return tier;
}
