import { runService } from '@gateway/lib/service';
import { pricingConfigShape } from './config';

/** The pricing service as its own process (lib's runService: env, telemetry first, catalog, serve, drain on SIGTERM). */
runService({
  name: 'pricing',
  configShape: pricingConfigShape,
  async start(config, { logger }) {
    // Loaded after telemetry so grpc-js is instrumented.
    const { DEFAULT_CATALOG_PATH, loadCatalog, watchCatalogFile } = await import('@gateway/lib/catalog');
    const { startPricingServer } = await import('./server');
    const { priceListSource, pricingState } = await import('./pricing/price-list');

    const catalogPath = config.CATALOG_PATH ?? DEFAULT_CATALOG_PATH;
    const catalog = loadCatalog(catalogPath);
    const prices = priceListSource(catalog);
    const stopWatching = watchCatalogFile(catalogPath, logger, (next) => {
      if (prices.replace(pricingState(next))) logger.info({ price_list: prices.current().book.version }, 'price list published');
    });
    const server = await startPricingServer({ prices, logger }, { host: config.HOST, port: config.PORT }, []);
    return {
      port: server.grpc.port,
      announce: { catalog: catalog.version, prices_as_of: catalog.pricesAsOf, price_list: prices.current().book.version },
      stop: async (graceMs) => {
        stopWatching();
        await server.stop(graceMs);
      },
    };
  },
});
