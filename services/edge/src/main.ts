import { runService } from '@gateway/lib/service';
import { edgeConfigShape, gatewayCatalogFrom, gatewaySettingsFrom, leaseSettingsFrom, settingsFrom } from './config';

/** The edge service as its own process (lib's runService: env, telemetry first, serve, drain on SIGTERM). */
runService({
  name: 'edge',
  configShape: edgeConfigShape,
  async start(config, { logger }) {
    // Loaded after telemetry, so that their meters are the SDK's.
    const { createPromiseClient } = await import('@gateway/lib/grpc');
    const { DEFAULT_CATALOG_PATH, loadCatalog, watchCatalogFile } = await import('@gateway/lib/catalog');
    const { AgentServiceService } = await import('@gateway/proto/gen/gateway/agent/v1/agent');
    const { AuthServiceService } = await import('@gateway/proto/gen/gateway/auth/v1/auth');
    const { LedgerServiceService } = await import('@gateway/proto/gen/gateway/ledger/v1/ledger');
    const { PricingServiceService } = await import('@gateway/proto/gen/gateway/pricing/v1/pricing');
    const { RouterServiceService } = await import('@gateway/proto/gen/gateway/router/v1/router');
    const { UsageServiceService } = await import('@gateway/proto/gen/gateway/usage/v1/usage');
    const { grpcHealthProbe } = await import('./health/grpc-health');
    const { createProviderClient, providerTimeoutsFrom } = await import('./provider');
    const { createEdgeApp } = await import('./server');
    const { startPrincipalCache } = await import('./gateway/principal-cache-setup');
    const { holdPriceList } = await import('./gateway/price-list');
    const { holdRoutingPolicy, routingReadiness } = await import('./gateway/routing-policy');
    const { holdLeases } = await import('./gateway/leases');

    const auth = createPromiseClient(AuthServiceService, {
      serviceName: 'auth',
      address: config.AUTH_ADDRESS,
      deadlineMs: config.RPC_DEADLINE_MS,
      logger,
    });
    const client = <D extends Parameters<typeof createPromiseClient>[0]>(definition: D, serviceName: string, address: string) =>
      createPromiseClient(definition, { serviceName, address, deadlineMs: config.RPC_DEADLINE_MS, logger });
    const router = client(RouterServiceService, 'router', config.ROUTER_ADDRESS);
    const pricing = client(PricingServiceService, 'pricing', config.PRICING_ADDRESS);
    const ledger = client(LedgerServiceService, 'ledger', config.LEDGER_ADDRESS);
    const agent = createPromiseClient(AgentServiceService, { serviceName: 'agent', address: config.AGENT_ADDRESS, deadlineMs: config.AGENT_DEADLINE_MS, logger });
    const usage = createPromiseClient(UsageServiceService, { serviceName: 'usage', address: config.USAGE_ADDRESS, deadlineMs: config.USAGE_DEADLINE_MS, logger });
    const catalogPath = config.CATALOG_PATH ?? DEFAULT_CATALOG_PATH;
    const catalog = loadCatalog(catalogPath);
    const provider = createProviderClient({ providers: catalog.providers, env: process.env, timeouts: providerTimeoutsFrom(config) });
    let catalogInForce = gatewayCatalogFrom(catalog);
    // As router, pricing and the ledger do: a changed catalog applies to the next call, without a restart.
    const stopWatching = watchCatalogFile(catalogPath, logger, (next) => {
      provider.useProviders(next.providers);
      catalogInForce = gatewayCatalogFrom(next);
      logger.info({ catalog: next.version }, 'catalog in force: models, plan meters and providers as the file now says');
    });
    const leases = holdLeases({ ledger, logger, settings: leaseSettingsFrom(config) });
    // A plan change reaches the leases as it reaches the cached principals.
    const principals = startPrincipalCache(config, logger, leases.release);
    const priceList = holdPriceList(pricing, logger);
    const routingPolicy = holdRoutingPolicy(router, logger);
    // Ready means able to serve: auth and routing are required, pricing and the ledger degrade.
    const probes = { auth: grpcHealthProbe('auth', config.AUTH_ADDRESS, config.RPC_DEADLINE_MS), router: grpcHealthProbe('router', config.ROUTER_ADDRESS, config.RPC_DEADLINE_MS) };
    const readiness = [probes.auth, routingReadiness(probes.router, routingPolicy)];
    const edge = createEdgeApp({
      auth,
      readiness,
      settings: settingsFrom(config),
      logger,
      gateway: { router, routingPolicy, pricing, priceList, ledger, leases, provider, settings: gatewaySettingsFrom(config, { current: () => catalogInForce }), principals: principals?.cache },
      agent,
      usage,
    });
    const port = await edge.start({ host: config.HOST, port: config.PORT, keepAliveTimeoutMs: config.HTTP_KEEP_ALIVE_TIMEOUT_MS });
    return {
      port,
      stop: (graceMs) => edge.stop(graceMs),
      close: async () => {
        stopWatching();
        principals?.close();
        priceList.stop();
        routingPolicy.stop();
        // After the drain: the calls admitted against the leases are over, and what they left unused goes back.
        await leases.stop();
        await provider.close();
        for (const closable of [auth, router, pricing, ledger, agent, usage, ...Object.values(probes)]) closable.close();
      },
    };
  },
});
