import type { Catalog } from '@gateway/lib/catalog';
import type { Logger } from '@gateway/lib/logging';

/** Everything pricing depends on: the catalog, loaded and checked before it starts. */
export interface PricingDeps {
  catalog: Catalog;
  logger: Logger;
}
