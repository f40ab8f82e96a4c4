import type { PromiseClient } from '@gateway/lib/grpc';
import type { Logger } from '@gateway/lib/logging';
import { priceBookFromMessage, type PriceBook } from '@gateway/lib/pricing';
import { holdLatest, type Held, type Resubscribe } from '@gateway/lib/published';
import type { PricingServiceService } from '@gateway/proto/gen/gateway/pricing/v1/pricing';

/** The latest price list pricing published, held for pricing each answer locally; until one arrives, edge asks `Price`. */
export type HeldPriceList = Held<PriceBook>;

/**
 * Subscribes to pricing's `WatchPriceList` and keeps the latest version. The
 * list held stays in use while pricing is away: prices do not change while
 * nobody publishes them.
 */
export function holdPriceList(pricing: PromiseClient<typeof PricingServiceService>, logger: Logger, resubscribe?: Resubscribe): HeldPriceList {
  return holdLatest(
    {
      kind: 'price_list',
      subscribe: (signal) => pricing.watchPriceList({}, { signal }),
      accept: ({ priceList }) => priceBookFromMessage(priceList),
      versionOf: (book) => book.version,
    },
    logger,
    resubscribe,
  );
}
