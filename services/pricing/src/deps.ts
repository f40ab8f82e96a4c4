import type { Logger } from '@gateway/lib/logging';
import type { PriceListSource } from './pricing/price-list';

/** Everything pricing depends on: the price list in force (from a catalog loaded and checked before it starts). */
export interface PricingDeps {
  prices: PriceListSource;
  logger: Logger;
}
