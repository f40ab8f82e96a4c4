import { runService } from '@gateway/lib/service';
import { agentConfigShape, settingsFrom } from './config';

/** The agent service as its own process (lib's runService: env, telemetry first, serve and schedule, drain on SIGTERM). */
runService({
  name: 'agent',
  configShape: agentConfigShape,
  async start(config, { logger }) {
    // Loaded after telemetry, so that their meters are the SDK's.
    const { openServiceDatabase, pingDatabase } = await import('@gateway/lib/db');
    const { createPromiseClient, grpcHealthProbe, servingCheck } = await import('@gateway/lib/grpc');
    const { AuthServiceService } = await import('@gateway/proto/gen/gateway/auth/v1/auth');
    const { LedgerServiceService } = await import('@gateway/proto/gen/gateway/ledger/v1/ledger');
    const { PricingServiceService } = await import('@gateway/proto/gen/gateway/pricing/v1/pricing');
    const { RouterServiceService } = await import('@gateway/proto/gen/gateway/router/v1/router');
    const { AGENT_SCHEMA, agentMigrations } = await import('./db');
    const { createGatewayClient } = await import('./chat/gateway');
    const { databaseDependency, gatewayDependency, grpcDependency } = await import('./status/health');
    const { startAgentServer } = await import('./server');

    const database = await openServiceDatabase<import('./db').AgentDatabase>(
      { url: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE, schema: AGENT_SCHEMA, migrations: agentMigrations, migrateOnStart: config.MIGRATE_ON_START },
      logger,
    );
    const client = <D extends Parameters<typeof createPromiseClient>[0]>(definition: D, serviceName: string, address: string) =>
      createPromiseClient(definition, { serviceName, address, deadlineMs: config.RPC_DEADLINE_MS, logger });
    const auth = client(AuthServiceService, 'auth', config.AUTH_ADDRESS);
    const ledger = client(LedgerServiceService, 'ledger', config.LEDGER_ADDRESS);
    const router = client(RouterServiceService, 'router', config.ROUTER_ADDRESS);
    const pricing = client(PricingServiceService, 'pricing', config.PRICING_ADDRESS);
    const probe = (name: string, address: string) => grpcHealthProbe(name, address, config.RPC_DEADLINE_MS);
    const authProbe = probe('auth', config.AUTH_ADDRESS);
    const probes = [
      authProbe,
      probe('ledger', config.LEDGER_ADDRESS),
      probe('router', config.ROUTER_ADDRESS),
      probe('pricing', config.PRICING_ADDRESS),
    ];
    const gateway = createGatewayClient({
      baseUrl: config.GATEWAY_URL,
      platformSecret: config.AGENT_PLATFORM_SECRET,
      timeoutMs: config.GATEWAY_TIMEOUT_MS,
      probeTimeoutMs: config.RPC_DEADLINE_MS,
    });
    const server = await startAgentServer(
      {
        db: database.db,
        auth,
        ledger,
        router,
        pricing,
        gateway,
        healthProbes: [...probes.map(grpcDependency), gatewayDependency(gateway), databaseDependency(database.db)],
        settings: settingsFrom(config),
        logger,
      },
      { host: config.HOST, port: config.PORT },
      // Every RPC reads the agent's tables and asks auth whose agent record it is.
      [{ name: 'postgres', check: () => pingDatabase(database.db) }, servingCheck(authProbe)],
      { enabled: config.SCHEDULER_ENABLED, intervalMs: config.SCHEDULER_INTERVAL_MS },
    );
    return {
      port: server.grpc.port,
      stop: (graceMs) => server.stop(graceMs),
      close: async () => {
        for (const closable of [auth, ledger, router, pricing, ...probes]) closable.close();
        await database.destroy();
      },
    };
  },
});
