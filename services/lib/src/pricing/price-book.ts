import { createHash } from 'node:crypto';
import type { Catalog } from '../catalog';
import type { MicroUsd } from '../money';

/** A model's list prices, in integer micro-dollars per one million tokens. */
export interface ModelPrice {
  inputMicrosPerMillion: MicroUsd;
  outputMicrosPerMillion: MicroUsd;
}

/** What pricing needs of a plan: the model `auto` is measured against, and the tier-level savings estimates. */
export interface PlanPricing {
  /** The plan ceiling's model (`tier_models[ceiling_tier]`); undefined when the plan names none. */
  ceilingModel: string | undefined;
  savingsEstimatePct: ReadonlyMap<string, number>;
}

/**
 * Everything a request's price depends on, and nothing else: the price list
 * pricing publishes and edge holds. Its version is a hash of that content,
 * so two lists with the same prices have the same version wherever they
 * were built, and any change of a price gives a new one.
 */
export interface PriceBook {
  version: string;
  /** Date the list prices were taken from the providers' published prices. */
  pricesAsOf: string;
  models: ReadonlyMap<string, ModelPrice>;
  plans: ReadonlyMap<string, PlanPricing>;
}

export type PriceBookContent = Omit<PriceBook, 'version'>;

/** `sha256:` and the first 16 hex digits of the hash of the content in a fixed order (map order does not count). */
export function priceBookVersion({ pricesAsOf, models, plans }: PriceBookContent): string {
  const sorted = <V>(map: ReadonlyMap<string, V>) => [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const canonical = JSON.stringify({
    pricesAsOf,
    models: sorted(models).map(([id, price]) => [id, price.inputMicrosPerMillion.toString(), price.outputMicrosPerMillion.toString()]),
    plans: sorted(plans).map(([name, plan]) => [name, plan.ceilingModel ?? null, sorted(plan.savingsEstimatePct)]),
  });
  return `sha256:${createHash('sha256').update(canonical).digest('hex').slice(0, 16)}`;
}

export function priceBook({ pricesAsOf, models, plans }: PriceBookContent): PriceBook {
  return { version: priceBookVersion({ pricesAsOf, models, plans }), pricesAsOf, models, plans };
}

/** The price list of a catalog. */
export function priceBookFromCatalog(catalog: Catalog): PriceBook {
  return priceBook({
    pricesAsOf: catalog.pricesAsOf,
    models: new Map(
      [...catalog.models.values()].map((model) => [
        model.id,
        { inputMicrosPerMillion: model.inputMicrosPerMillion, outputMicrosPerMillion: model.outputMicrosPerMillion },
      ]),
    ),
    plans: new Map(
      [...catalog.plans.values()].map((plan) => [
        plan.name,
        { ceilingModel: plan.tierModels.get(plan.ceilingTier), savingsEstimatePct: plan.savingsEstimatePct },
      ]),
    ),
  });
}
