import type { PromiseClient } from '@gateway/lib/grpc';
import type { Logger } from '@gateway/lib/logging';
import { priceBookFromMessage, type PriceBook } from '@gateway/lib/pricing';
import type { PricingServiceService } from '@gateway/proto/gen/gateway/pricing/v1/pricing';
import { holdStream, type SubscriptionBackoff } from './subscription';

/** The latest price list pricing published, held for pricing each answer locally. */
export interface HeldPriceList {
  /** Undefined until the first list arrives: edge then asks `Price`. */
  current(): PriceBook | undefined;
  stop(): void;
}

export type PriceListSubscription = SubscriptionBackoff;

export const DEFAULT_PRICE_LIST_SUBSCRIPTION: PriceListSubscription = { initialBackoffMs: 100, maxBackoffMs: 5000 };

/**
 * Subscribes to pricing's `WatchPriceList` and keeps the latest version. The
 * list held stays in use while pricing is away (prices do not change while
 * nobody publishes them); the stream is opened again with a backoff that
 * doubles from initialBackoffMs and starts over once a list arrives.
 */
export function holdPriceList(
  pricing: PromiseClient<typeof PricingServiceService>,
  logger: Logger,
  backoff: PriceListSubscription = DEFAULT_PRICE_LIST_SUBSCRIPTION,
): HeldPriceList {
  let held: PriceBook | undefined;
  const subscription = holdStream(
    {
      open: (signal) => pricing.watchPriceList({}, { signal }),
      onMessage: ({ priceList }) => {
        const book = priceBookFromMessage(priceList);
        if (book.version !== held?.version) logger.info({ price_list: book.version, previous: held?.version }, 'price list received');
        held = book;
      },
      onLost: (error) => {
        if (error !== undefined) logger.warn({ err: error, holding: held?.version ?? null }, 'price list stream failed: subscribing again');
      },
    },
    logger,
    backoff,
  );
  return { current: () => held, stop: () => subscription.stop() };
}
