import { loadCatalog } from '@gateway/lib/catalog';
import { DomainError } from '@gateway/lib/errors';
import { createInProcessClient, type ServiceHandlers } from '@gateway/lib/grpc';
import { createLogger } from '@gateway/lib/logging';
import { priceBook, priceBookFromCatalog, priceListMessage, type PriceBook } from '@gateway/lib/pricing';
import { PricingServiceService, type WatchPriceListResponse } from '@gateway/proto/gen/gateway/pricing/v1/pricing';
import { holdPriceList } from './price-list';

const logger = createLogger({ service: 'test', level: 'silent' });
const first = priceBookFromCatalog(loadCatalog());
const second: PriceBook = priceBook({ ...first, pricesAsOf: '2099-01-01' });
const listOf = (book: PriceBook): WatchPriceListResponse => ({ priceList: priceListMessage(book) });

/** pricing, as edge's client sees it, answering each subscription with what `plan` says for that attempt. */
function pricingWith(plan: (attempt: number) => AsyncIterable<WatchPriceListResponse>) {
  let attempts = 0;
  const unexpected = () => Promise.reject(new Error('edge holding a list asks nothing else'));
  const handlers: ServiceHandlers<typeof PricingServiceService> = {
    price: unexpected,
    listModels: unexpected,
    watchPriceList: () => plan((attempts += 1)),
  };
  return { client: createInProcessClient(PricingServiceService, handlers, { serviceName: 'pricing', deadlineMs: 1000, logger }), attempts: () => attempts };
}

const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 1));
};

describe('the price list edge holds', () => {
  it('holds nothing until a list arrives, then the latest version', async () => {
    let publishSecond: () => void = () => undefined;
    const secondPublished = new Promise<void>((resolve) => (publishSecond = resolve));
    const pricing = pricingWith(async function* () {
      yield listOf(first);
      await secondPublished;
      yield listOf(second);
    });
    const held = holdPriceList(pricing.client, logger, { initialBackoffMs: 1, maxBackoffMs: 1 });
    try {
      expect(held.current()).toBeUndefined();
      await until(() => held.current() !== undefined);
      expect(held.current()?.version).toBe(first.version);
      publishSecond();
      await until(() => held.current()?.version === second.version);
    } finally {
      held.stop();
    }
  });

  it('keeps the list it holds while the stream fails, and subscribes again until a new one comes', async () => {
    const pricing = pricingWith(async function* (attempt) {
      if (attempt === 1) yield listOf(first);
      else if (attempt < 4) throw new DomainError('unavailable', 'The pricing service is unavailable.');
      else yield listOf(second);
    });
    const held = holdPriceList(pricing.client, logger, { initialBackoffMs: 1, maxBackoffMs: 2 });
    try {
      await until(() => pricing.attempts() >= 3);
      expect(held.current()?.version).toBe(first.version);
      await until(() => held.current()?.version === second.version);
    } finally {
      held.stop();
    }
  });

  it('refuses a list whose content does not match its version, keeping the one it holds', async () => {
    const forged = listOf(second);
    if (forged.priceList) forged.priceList.version = first.version.replace(/.$/, (last) => (last === '0' ? '1' : '0'));
    const pricing = pricingWith(async function* (attempt) {
      yield attempt === 1 ? listOf(first) : forged;
    });
    const held = holdPriceList(pricing.client, logger, { initialBackoffMs: 1, maxBackoffMs: 1 });
    try {
      await until(() => pricing.attempts() >= 3);
      expect(held.current()?.version).toBe(first.version);
    } finally {
      held.stop();
    }
  });
});
