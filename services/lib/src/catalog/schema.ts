import { z } from 'zod';

/**
 * The model catalog and plans: one versioned JSON file (a ConfigMap in
 * Kubernetes) read by router, pricing and ledger, checked here at start.
 * Prices are decimal USD strings in the file and integer micro-dollars in
 * memory; no float ever holds money.
 */
const usdAmount = z.string().regex(/^\d+(\.\d{1,6})?$/, 'a USD amount as a string with at most 6 decimal places');
const identifier = z.string().regex(/^[a-z0-9][a-z0-9._:-]*$/, 'lower-case letters, digits, and . _ : -');

export const meters = ['spend', 'requests', 'legacy'] as const;
export type MeterName = (typeof meters)[number];

export const providerSchema = z.object({
  base_url: z.string().url(),
  /** Environment variable holding the managed provider key. */
  api_key_env: z.string().regex(/^[A-Z][A-Z0-9_]*$/),
});

export const modelSchema = z.object({
  id: identifier,
  provider: identifier,
  tier: identifier,
  input_usd_per_million_tokens: usdAmount,
  output_usd_per_million_tokens: usdAmount,
  context_window: z.number().int().positive(),
  /** The most tokens one answer can hold; absent, the context window bounds it. */
  max_output_tokens: z.number().int().positive().optional(),
  /** Body parameters this model rejects with a 400; dropped and flagged instead. */
  unsupported_params: z.array(z.string()).default([]),
});

export const planSchema = z.object({
  description: z.string(),
  /** Meter for managed traffic; BYOK traffic always uses `requests`. */
  meter: z.enum(meters),
  /** spend meter: dollars of model spend per calendar month. */
  monthly_allowance_usd: usdAmount.optional(),
  /** requests meter: requests per month for BYOK traffic on this plan. */
  byok_requests_per_month: z.number().int().nonnegative(),
  /** legacy meter: messages per month when the agent record sets no limit. */
  legacy_messages_per_month: z.number().int().nonnegative().optional(),
  /** Highest tier this plan may use; `auto` never goes above it. */
  ceiling_tier: identifier,
  /** The model that serves each tier for `auto`, up to the ceiling. */
  tier_models: z.record(identifier, identifier),
  /** Tier-level savings estimate in percent (`x-service-savings-pct`). */
  savings_estimate_pct: z.record(identifier, z.number().int().min(0).max(100)),
});

export const catalogFileSchema = z
  .object({
    version: z.string().min(1),
    /** Date the list prices were read from the providers' published pages. */
    prices_as_of: z.iso.date(),
    notes: z.string().optional(),
    /** Ordered from the simplest to the most capable. */
    tiers: z.array(identifier).min(1),
    providers: z.record(identifier, providerSchema),
    models: z.array(modelSchema).min(1),
    plans: z.record(identifier, planSchema),
  })
  .superRefine((file, context) => {
    const problem = (path: Array<string | number>, message: string) => context.addIssue({ code: 'custom', path, message });
    const modelIds = new Set<string>();
    file.models.forEach((model, index) => {
      if (modelIds.has(model.id)) problem(['models', index, 'id'], `duplicate model id ${model.id}`);
      modelIds.add(model.id);
      if (!file.providers[model.provider]) problem(['models', index, 'provider'], `unknown provider ${model.provider}`);
      if (!file.tiers.includes(model.tier)) problem(['models', index, 'tier'], `unknown tier ${model.tier}; tiers are ${file.tiers.join(', ')}`);
    });
    for (const [name, plan] of Object.entries(file.plans)) {
      const ceiling = file.tiers.indexOf(plan.ceiling_tier);
      if (ceiling < 0) problem(['plans', name, 'ceiling_tier'], `unknown tier ${plan.ceiling_tier}`);
      if (plan.meter === 'spend' && plan.monthly_allowance_usd === undefined)
        problem(['plans', name, 'monthly_allowance_usd'], 'required for the spend meter');
      if (plan.meter === 'legacy' && plan.legacy_messages_per_month === undefined)
        problem(['plans', name, 'legacy_messages_per_month'], 'required for the legacy meter');
      file.tiers.slice(0, ceiling + 1).forEach((tier) => {
        const modelId = plan.tier_models[tier];
        if (!modelId) problem(['plans', name, 'tier_models', tier], `no model for tier ${tier} (at or below the ceiling)`);
        else if (!modelIds.has(modelId)) problem(['plans', name, 'tier_models', tier], `unknown model ${modelId}`);
        if (plan.savings_estimate_pct[tier] === undefined) problem(['plans', name, 'savings_estimate_pct', tier], `no estimate for tier ${tier}`);
      });
    }
  });

export type CatalogFile = z.infer<typeof catalogFileSchema>;
