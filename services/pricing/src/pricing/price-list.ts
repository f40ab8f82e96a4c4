import type { Catalog } from '@gateway/lib/catalog';
import { priceBookFromCatalog, type PriceBook } from '@gateway/lib/pricing';
import { published, type Published } from '@gateway/lib/published';
import type { ListModelsResponse } from '@gateway/proto/gen/gateway/pricing/v1/pricing';
import { listModels } from './models';

/** What pricing answers from: one catalog, its price list and its ListModels answer, replaced together. */
export interface PricingState {
  catalog: Catalog;
  book: PriceBook;
  models: ListModelsResponse;
}

/**
 * The price list in force and everyone watching it. A new catalog whose
 * prices differ publishes a new version to every watcher; one with the same
 * prices (same version) changes nothing.
 */
export type PriceListSource = Published<PricingState>;

export function pricingState(catalog: Catalog): PricingState {
  return { catalog, book: priceBookFromCatalog(catalog), models: listModels(catalog) };
}

export function priceListSource(catalog: Catalog): PriceListSource {
  return published(pricingState(catalog), (state) => state.book.version);
}
