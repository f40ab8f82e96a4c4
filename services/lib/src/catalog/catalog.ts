import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseUsd, type MicroUsd } from '../money';
import { catalogFileSchema, type CatalogFile, type MeterName } from './schema';

export interface CatalogModel {
  id: string;
  provider: string;
  tier: string;
  /** Integer micro-dollars per one million tokens. */
  inputMicrosPerMillion: MicroUsd;
  outputMicrosPerMillion: MicroUsd;
  contextWindow: number;
  /** The most tokens one answer (one choice) can hold. */
  maxOutputTokens: number;
  unsupportedParams: ReadonlySet<string>;
}

export interface CatalogPlan {
  name: string;
  description: string;
  meter: MeterName;
  monthlyAllowanceMicros: MicroUsd | undefined;
  byokRequestsPerMonth: number;
  legacyMessagesPerMonth: number | undefined;
  ceilingTier: string;
  /** Index of the ceiling in the catalog's tier order. */
  ceilingRank: number;
  tierModels: ReadonlyMap<string, string>;
  savingsEstimatePct: ReadonlyMap<string, number>;
}

export interface Catalog {
  version: string;
  pricesAsOf: string;
  tiers: readonly string[];
  providers: CatalogFile['providers'];
  models: ReadonlyMap<string, CatalogModel>;
  plans: ReadonlyMap<string, CatalogPlan>;
  tierRank(tier: string): number;
}

/** The catalog shipped with the code; CATALOG_PATH points elsewhere. */
/**
 * docs/api.md#limits-and-allowances: BYOK traffic counts requests; managed
 * traffic counts on its plan's meter. The ledger meters by this rule and edge
 * leases by it.
 */
export function meterOfTraffic(planMeter: MeterName, byok: boolean): MeterName {
  return byok ? 'requests' : planMeter;
}

export const DEFAULT_CATALOG_PATH = join(__dirname, '..', '..', 'catalog', 'catalog.json');

export class CatalogError extends Error {
  override name = 'CatalogError';
}

export function parseCatalog(raw: unknown, source = 'catalog'): Catalog {
  const result = catalogFileSchema.safeParse(raw);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
    throw new CatalogError(`${source} is invalid:\n  ${problems.join('\n  ')}`);
  }
  const file = result.data;
  const models = new Map<string, CatalogModel>(
    file.models.map((model) => [
      model.id,
      {
        id: model.id,
        provider: model.provider,
        tier: model.tier,
        inputMicrosPerMillion: parseUsd(model.input_usd_per_million_tokens),
        outputMicrosPerMillion: parseUsd(model.output_usd_per_million_tokens),
        contextWindow: model.context_window,
        maxOutputTokens: model.max_output_tokens ?? model.context_window,
        unsupportedParams: new Set(model.unsupported_params),
      },
    ]),
  );
  const plans = new Map<string, CatalogPlan>(
    Object.entries(file.plans).map(([name, plan]) => [
      name,
      {
        name,
        description: plan.description,
        meter: plan.meter,
        monthlyAllowanceMicros: plan.monthly_allowance_usd === undefined ? undefined : parseUsd(plan.monthly_allowance_usd),
        byokRequestsPerMonth: plan.byok_requests_per_month,
        legacyMessagesPerMonth: plan.legacy_messages_per_month,
        ceilingTier: plan.ceiling_tier,
        ceilingRank: file.tiers.indexOf(plan.ceiling_tier),
        tierModels: new Map(Object.entries(plan.tier_models)),
        savingsEstimatePct: new Map(Object.entries(plan.savings_estimate_pct)),
      },
    ]),
  );
  return {
    version: file.version,
    pricesAsOf: file.prices_as_of,
    tiers: file.tiers,
    providers: file.providers,
    models,
    plans,
    tierRank: (tier) => file.tiers.indexOf(tier),
  };
}

export function loadCatalog(path = process.env.CATALOG_PATH ?? DEFAULT_CATALOG_PATH): Catalog {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new CatalogError(`cannot read catalog ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return parseCatalog(raw, path);
}
