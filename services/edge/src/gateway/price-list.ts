import type { PromiseClient } from '@gateway/lib/grpc';
import type { Logger } from '@gateway/lib/logging';
import { priceBookFromMessage, type PriceBook } from '@gateway/lib/pricing';
import type { PricingServiceService } from '@gateway/proto/gen/gateway/pricing/v1/pricing';

/** The latest price list pricing published, held for pricing each answer locally. */
export interface HeldPriceList {
  /** Undefined until the first list arrives: edge then asks `Price`. */
  current(): PriceBook | undefined;
  stop(): void;
}

export interface PriceListSubscription {
  /** The first wait before subscribing again after the stream ended or failed; it doubles up to maxBackoffMs. */
  initialBackoffMs: number;
  maxBackoffMs: number;
}

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
  { initialBackoffMs, maxBackoffMs }: PriceListSubscription = DEFAULT_PRICE_LIST_SUBSCRIPTION,
): HeldPriceList {
  const stopped = new AbortController();
  let held: PriceBook | undefined;
  let backoffMs = initialBackoffMs;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        stopped.signal.removeEventListener('abort', done);
        resolve();
      }
      stopped.signal.addEventListener('abort', done, { once: true });
    });

  const subscribe = async () => {
    while (!stopped.signal.aborted) {
      try {
        for await (const { priceList } of pricing.watchPriceList({}, { signal: stopped.signal })) {
          const book = priceBookFromMessage(priceList);
          if (book.version !== held?.version) logger.info({ price_list: book.version, previous: held?.version }, 'price list received');
          held = book;
          backoffMs = initialBackoffMs;
        }
      } catch (error) {
        logger.warn({ err: error, holding: held?.version ?? null }, 'price list stream failed: subscribing again');
      }
      if (stopped.signal.aborted) return;
      await pause(backoffMs);
      backoffMs = Math.min(backoffMs * 2, maxBackoffMs);
    }
  };
  void subscribe();
  return { current: () => held, stop: () => stopped.abort() };
}
