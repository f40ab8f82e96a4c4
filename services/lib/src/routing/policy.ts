import { createHash } from 'node:crypto';
import type { Catalog } from '../catalog';

/** A catalog model, as far as routing reads it. */
export interface RoutedModel {
  id: string;
  provider: string;
  tier: string;
  unsupportedParams: ReadonlySet<string>;
}

/** A plan, as far as routing reads it. */
export interface RoutingPlan {
  name: string;
  ceilingTier: string;
  /** Index of the ceiling in the policy's tier order. */
  ceilingRank: number;
  tierModels: ReadonlyMap<string, string>;
}

/**
 * Everything a route depends on besides the request, and nothing else: the
 * policy the router routes with and publishes, and edge holds. Its version is
 * a hash of that content, so two policies that route alike have the same
 * version wherever they were built, and any change that can route a request
 * differently gives a new one.
 */
export interface RoutingPolicy {
  version: string;
  /** The catalog file's own version, named in the reasons of data errors. */
  catalogVersion: string;
  /** Ordered from the simplest to the most capable. */
  tiers: readonly string[];
  /** In the catalog's order, which an unknown model's error lists. */
  models: ReadonlyMap<string, RoutedModel>;
  plans: ReadonlyMap<string, RoutingPlan>;
  tierRank(tier: string): number;
}

export interface RoutingPolicyContent {
  catalogVersion: string;
  tiers: readonly string[];
  models: ReadonlyMap<string, RoutedModel>;
  plans: ReadonlyMap<string, Omit<RoutingPlan, 'ceilingRank'>>;
}

const byKey = <V>(map: ReadonlyMap<string, V>) => [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** `sha256:` and the first 16 hex digits of the hash of the content (plans and sets in a fixed order, models in theirs). */
export function routingPolicyVersion({ catalogVersion, tiers, models, plans }: RoutingPolicyContent): string {
  const canonical = JSON.stringify({
    catalogVersion,
    tiers,
    models: [...models.values()].map((model) => [model.id, model.provider, model.tier, [...model.unsupportedParams].sort()]),
    plans: byKey(plans).map(([name, plan]) => [name, plan.ceilingTier, byKey(plan.tierModels)]),
  });
  return `sha256:${createHash('sha256').update(canonical).digest('hex').slice(0, 16)}`;
}

export function routingPolicy(content: RoutingPolicyContent): RoutingPolicy {
  const { catalogVersion, tiers, models } = content;
  const plans = new Map([...content.plans].map(([name, plan]) => [name, { ...plan, ceilingRank: tiers.indexOf(plan.ceilingTier) }]));
  return { version: routingPolicyVersion(content), catalogVersion, tiers, models, plans, tierRank: (tier) => tiers.indexOf(tier) };
}

/** The routing policy of a catalog. */
export function routingPolicyFromCatalog(catalog: Catalog): RoutingPolicy {
  return routingPolicy({
    catalogVersion: catalog.version,
    tiers: catalog.tiers,
    models: new Map(
      [...catalog.models.values()].map(({ id, provider, tier, unsupportedParams }) => [id, { id, provider, tier, unsupportedParams }]),
    ),
    plans: new Map([...catalog.plans.values()].map(({ name, ceilingTier, tierModels }) => [name, { name, ceilingTier, tierModels }])),
  });
}
