import { loadCatalog, type Catalog } from '@gateway/lib/catalog';

/**
 * The plan tiers an organization or an agent record can be put on are the
 * plans of the model catalog (services/lib/catalog), the one place that
 * defines them with their meters, allowances and ceilings.
 *
 * A new agent record's monthly message limit defaults to its plan's: the
 * legacy meter's messages per month, else the requests a month the plan
 * allows BYOK traffic (the nearest thing a spend plan has to a message count).
 */
let catalog: Catalog | undefined;
function plans(): Catalog['plans'] {
  catalog ??= loadCatalog();
  return catalog.plans;
}

export function planTierNames(): [string, ...string[]] {
  const names = [...plans().keys()];
  const [first, ...rest] = names;
  if (first === undefined) throw new Error('the model catalog defines no plans');
  return [first, ...rest];
}

export function defaultMessagesLimit(planTier: string): number | undefined {
  const plan = plans().get(planTier);
  return plan === undefined ? undefined : (plan.legacyMessagesPerMonth ?? plan.byokRequestsPerMonth);
}
