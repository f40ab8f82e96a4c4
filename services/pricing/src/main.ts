import { runService } from '@gateway/lib/service';
import { pricingConfigShape } from './config';

/** The pricing service as its own process (lib's runService: env, telemetry first, catalog, serve, drain on SIGTERM). */
runService({
  name: 'pricing',
  configShape: pricingConfigShape,
  async start(config, { logger }) {
    // Loaded after telemetry so grpc-js is instrumented.
    const { loadCatalog } = await import('@gateway/lib/catalog');
    const { startPricingServer } = await import('./server');

    const catalog = loadCatalog(config.CATALOG_PATH);
    const server = await startPricingServer({ catalog, logger }, { host: config.HOST, port: config.PORT }, []);
    return { port: server.grpc.port, announce: { catalog: catalog.version, prices_as_of: catalog.pricesAsOf }, stop: (graceMs) => server.stop(graceMs) };
  },
});
