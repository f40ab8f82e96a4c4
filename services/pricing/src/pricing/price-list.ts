import type { Catalog } from '@gateway/lib/catalog';
import { priceBookFromCatalog, type PriceBook } from '@gateway/lib/pricing';
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
export interface PriceListSource {
  current(): PricingState;
  /** Takes a new catalog; true when it published a new version. */
  replace(catalog: Catalog): boolean;
  /** The list in force, then every later version, until the signal aborts. */
  watch(signal: AbortSignal): AsyncIterable<PriceBook>;
}

function stateOf(catalog: Catalog): PricingState {
  return { catalog, book: priceBookFromCatalog(catalog), models: listModels(catalog) };
}

export function priceListSource(catalog: Catalog): PriceListSource {
  let state = stateOf(catalog);
  const waiting = new Set<() => void>();
  return {
    current: () => state,
    replace(next) {
      const candidate = stateOf(next);
      if (candidate.book.version === state.book.version) return false;
      state = candidate;
      for (const wake of waiting) wake();
      waiting.clear();
      return true;
    },
    async *watch(signal) {
      let sent: string | undefined;
      while (!signal.aborted) {
        if (state.book.version !== sent) {
          sent = state.book.version;
          yield state.book;
          continue;
        }
        await new Promise<void>((resolve) => {
          const wake = () => {
            signal.removeEventListener('abort', wake);
            waiting.delete(wake);
            resolve();
          };
          waiting.add(wake);
          signal.addEventListener('abort', wake, { once: true });
        });
      }
    },
  };
}
