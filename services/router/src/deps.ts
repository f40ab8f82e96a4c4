import type { Catalog } from '@gateway/lib/catalog';
import type { Logger } from '@gateway/lib/logging';

/** Everything the router depends on: the catalog, loaded and checked before it starts. */
export interface RouterDeps {
  catalog: Catalog;
  logger: Logger;
}
