import { runService } from '@gateway/lib/service';
import { routerConfigShape } from './config';

/** The router service as its own process (lib's runService: env, telemetry first, catalog, serve, drain on SIGTERM). */
runService({
  name: 'router',
  configShape: routerConfigShape,
  async start(config, { logger }) {
    // Loaded after telemetry so grpc-js is instrumented.
    const { loadCatalog } = await import('@gateway/lib/catalog');
    const { startRouterServer } = await import('./server');

    const catalog = loadCatalog(config.CATALOG_PATH);
    const server = await startRouterServer({ catalog, logger }, { host: config.HOST, port: config.PORT }, []);
    return { port: server.grpc.port, announce: { catalog: catalog.version }, stop: (graceMs) => server.stop(graceMs) };
  },
});
