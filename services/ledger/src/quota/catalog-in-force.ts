import { createHash } from 'node:crypto';
import type { Catalog } from '@gateway/lib/catalog';
import { published, type Published } from '@gateway/lib/published';

/** The catalog the ledger meters with: the file's, replaced when the file changes what metering reads (main.ts). */
export type CatalogInForce = Pick<Published<Catalog>, 'current'>;

/**
 * What metering reads of a catalog (meterFor), as a version: each plan's
 * meter and limits. A catalog file keeps its declared version through an
 * edit, and a change of anything else (prices, models) moves no allowance,
 * so neither is what decides here.
 */
function meteringVersion(catalog: Catalog): string {
  const plans = [...catalog.plans.values()].map((plan) => [
    plan.name,
    plan.meter,
    plan.monthlyAllowanceMicros?.toString() ?? null,
    plan.byokRequestsPerMonth,
    plan.legacyMessagesPerMonth ?? null,
  ]);
  return createHash('sha256').update(JSON.stringify(plans)).digest('hex').slice(0, 16);
}

/** The catalog in force, starting from `initial`; `replace` takes a new one when its metering differs. */
export function catalogInForce(initial: Catalog): Published<Catalog> {
  return published(initial, meteringVersion);
}
