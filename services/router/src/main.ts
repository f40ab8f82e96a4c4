import { runService } from '@gateway/lib/service';
import { routerConfigShape } from './config';

/** The router service as its own process (lib's runService: env, telemetry first, catalog, serve, drain on SIGTERM). */
runService({
  name: 'router',
  configShape: routerConfigShape,
  async start(config, { logger }) {
    // Loaded after telemetry so grpc-js is instrumented.
    const { DEFAULT_CATALOG_PATH, loadCatalog, watchCatalogFile } = await import('@gateway/lib/catalog');
    const { startRouterServer } = await import('./server');
    const { routerFromCatalog, routingSource } = await import('./routing-policy');

    const catalogPath = config.CATALOG_PATH ?? DEFAULT_CATALOG_PATH;
    const catalog = loadCatalog(catalogPath);
    const routing = routingSource(catalog);
    const stopWatching = watchCatalogFile(catalogPath, logger, (next) => {
      if (routing.replace(routerFromCatalog(next))) logger.info({ routing_policy: routing.current().policy.version }, 'routing policy published');
    });
    const server = await startRouterServer({ routing, logger }, { host: config.HOST, port: config.PORT }, []);
    return {
      port: server.grpc.port,
      announce: { catalog: catalog.version, routing_policy: routing.current().policy.version },
      stop: async (graceMs) => {
        stopWatching();
        await server.stop(graceMs);
      },
    };
  },
});
