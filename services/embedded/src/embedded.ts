import { join } from 'node:path';
import { issueAgentSecret } from '@gateway/auth/admin';
import { defaultSettings as defaultAgentSettings } from '@gateway/agent/config';
import { AGENT_SCHEMA, agentMigrations, type AgentDatabase } from '@gateway/agent/db';
import { createGatewayClient } from '@gateway/agent/gateway';
import { startAgentServer } from '@gateway/agent/server';
import { databaseDependency, gatewayDependency, grpcDependency } from '@gateway/agent/health';
import { AUTH_SCHEMA, authMigrations, type AuthDatabase } from '@gateway/auth/db';
import { startAuthServer } from '@gateway/auth/server';
import { inProcessInvalidator } from '@gateway/auth/invalidation';
import { MemoryAttemptThrottle } from '@gateway/auth/throttle';
import { gatewayCatalogFrom, gatewaySettingsFrom, leaseConfigShape, leaseSettingsFrom } from '@gateway/edge/config';
import { holdLeases, type LeaseHolder } from '@gateway/edge/leases';
import { createProviderClient } from '@gateway/edge/provider';
import { grpcHealthProbe } from '@gateway/edge/readiness';
import { holdPriceList } from '@gateway/edge/price-list';
import { holdRoutingPolicy, routingReadiness } from '@gateway/edge/routing-policy';
import { PrincipalCache } from '@gateway/edge/principal-cache';
import { createEdgeApp } from '@gateway/edge/server';
import { LEDGER_SCHEMA, ledgerMigrations, type LedgerDatabase } from '@gateway/ledger/db';
import { startLedgerServer } from '@gateway/ledger/server';
import { MemoryAllowanceChanges, MemoryQuotaStore, MemoryRecordQueue, catalogInForce } from '@gateway/ledger/stores';
import { loadCatalog } from '@gateway/lib/catalog';
import { loadConfig } from '@gateway/lib/config';
import { connectDatabase, migrateToLatest, openPGliteThread, pingDatabase } from '@gateway/lib/db';
import { createInProcessClient, createPromiseClient, servingCheck, type DependencyCheck } from '@gateway/lib/grpc';
import { createLogger, type Logger } from '@gateway/lib/logging';
import { freePort } from '@gateway/lib/net';
import { priceListSource } from '@gateway/pricing/price-list';
import { startPricingServer } from '@gateway/pricing/server';
import { AgentServiceService } from '@gateway/proto/gen/gateway/agent/v1/agent';
import { AuthServiceService } from '@gateway/proto/gen/gateway/auth/v1/auth';
import { LedgerServiceService } from '@gateway/proto/gen/gateway/ledger/v1/ledger';
import { PricingServiceService } from '@gateway/proto/gen/gateway/pricing/v1/pricing';
import { RouterServiceService } from '@gateway/proto/gen/gateway/router/v1/router';
import { UsageServiceService } from '@gateway/proto/gen/gateway/usage/v1/usage';
import { routingSource } from '@gateway/router/routing-policy';
import { startRouterServer } from '@gateway/router/server';
import { startSimulator } from '@gateway/simulator/server';
import { TRACES_SCHEMA, checkTracesReadable, settingsFrom, startUsageServer, usageSettingsShape, type TracesDatabase } from '@gateway/usage/server';
import type { z } from 'zod';
import type { embeddedConfigShape } from './config';
import { ensureDemoAccount, ensureDemoAgent, type DemoAccount } from './demo';
import { loadOrCreateLocalSecrets, withAgentPlatformSecret } from './local-secrets';

type EmbeddedConfig = z.infer<z.ZodObject<typeof embeddedConfigShape>>;

export interface Embedded {
  port: number;
  logger: Logger;
  /** What is running and how to try it, with where the metrics are served. */
  printWelcome(metricsUrl: string): void;
  stop(): Promise<void>;
}

const RPC_DEADLINE_MS = 2000;
/** edge's defaults in the stack (PRINCIPAL_CACHE_TTL_MS, PRINCIPAL_CACHE_MAX_ENTRIES). */
const PRINCIPAL_CACHE_TTL_MS = 30_000;
const PRINCIPAL_CACHE_MAX_ENTRIES = 10_000;
/** An agent chat waits for several model calls; a status asks every backend's health. */
const AGENT_DEADLINE_MS = 10_000;
const AGENT_CHAT_DEADLINE_MS = 180_000;
/** A usage report reads up to SCAN_CAP requests: longer than a hot-path call. */
const USAGE_DEADLINE_MS = 10_000;
/** The simulator stands in for every provider, so every managed key is this placeholder. */
const SIMULATOR_KEY = 'embedded-simulator';

export async function startEmbedded(config: EmbeddedConfig): Promise<Embedded> {
  const logger = createLogger({ service: 'embedded', level: config.LOG_LEVEL });
  const grpcListen = { host: '127.0.0.1', port: 0 };
  const secrets = loadOrCreateLocalSecrets(config.DATA_DIR);
  const catalog = loadCatalog();

  // On a thread of its own: its queries (the record writer's batches above all) do not hold up requests.
  const pglite = openPGliteThread(join(config.DATA_DIR, 'pglite'));
  const authDb = connectDatabase<AuthDatabase>({ kind: 'pglite', pglite }, AUTH_SCHEMA);
  const ledgerDb = connectDatabase<LedgerDatabase>({ kind: 'pglite', pglite }, LEDGER_SCHEMA);
  const agentDb = connectDatabase<AgentDatabase>({ kind: 'pglite', pglite }, AGENT_SCHEMA);
  const usageDb = connectDatabase<TracesDatabase>({ kind: 'pglite', pglite }, TRACES_SCHEMA);
  await migrateToLatest(authDb.db, AUTH_SCHEMA, authMigrations);
  await migrateToLatest(ledgerDb.db, LEDGER_SCHEMA, ledgerMigrations);
  await migrateToLatest(agentDb.db, AGENT_SCHEMA, agentMigrations);
  const agentPlatformSecret = await withAgentPlatformSecret(config.DATA_DIR, secrets, async () => {
    const { agentSecret } = await issueAgentSecret(authDb.db, { description: 'agent service (embedded mode)' });
    return agentSecret;
  });
  const databaseCheck: DependencyCheck[] = [{ name: 'pglite', check: () => pingDatabase(authDb.db) }];

  const simulator = await startSimulator({ catalog, logger: logger.child({ component: 'simulator' }) });
  const queue = new MemoryRecordQueue();
  // The memory store announces allowance changes; the ledger's WatchLeases streams hear them in the same process.
  const allowanceChanges = new MemoryAllowanceChanges();
  // Recent verifications, as edge keeps them in the stack; auth tells this cache of every change directly.
  const principals = new PrincipalCache({ ttlMs: PRINCIPAL_CACHE_TTL_MS, maxEntries: PRINCIPAL_CACHE_MAX_ENTRIES });
  principals.enable();
  // Edge's allowance leases, held once the ledger is up; a plan change reaches them as it reaches the cache.
  let leases: LeaseHolder | undefined;
  const loggers = {
    auth: logger.child({ component: 'auth' }),
    router: logger.child({ component: 'router' }),
    pricing: logger.child({ component: 'pricing' }),
    ledger: logger.child({ component: 'ledger' }),
    usage: logger.child({ component: 'usage' }),
  };
  const [auth, router, pricing, ledger, usage] = await Promise.all([
    startAuthServer(
      {
        db: authDb.db,
        throttle: new MemoryAttemptThrottle(),
        // One process, one edge: a change to an organization's credentials empties its entries in edge's cache at once.
        invalidator: inProcessInvalidator((organizationId) => {
          principals.dropOrganization(organizationId);
          leases?.release(organizationId);
        }),
        settings: {
          keyEnvironment: 'test',
          accessTokenSecret: secrets.accessTokenSecret,
          accessTokenTtlSeconds: 900,
          refreshTokenTtlDays: 30,
          secretsKey: Buffer.from(secrets.secretsKey, 'hex'),
          loginThrottle: { maxFailuresPerAccountSource: 5, maxFailuresPerSource: 20, maxFailuresPerAccount: 100, windowSeconds: 900 },
        },
        logger: loggers.auth,
      },
      grpcListen,
      databaseCheck,
    ),
    startRouterServer({ routing: routingSource(catalog), logger: loggers.router }, grpcListen, []),
    startPricingServer({ prices: priceListSource(catalog), logger: loggers.pricing }, grpcListen, []),
    startLedgerServer(
      { db: ledgerDb.db, quota: new MemoryQuotaStore(queue, allowanceChanges), queue, catalog: catalogInForce(catalog), allowanceChanges, logger: loggers.ledger },
      grpcListen,
      databaseCheck,
    ),
    startUsageServer(
      { db: usageDb.db, settings: settingsFrom(loadConfig(usageSettingsShape)), logger: loggers.usage },
      grpcListen,
      [{ name: 'pglite', check: () => checkTracesReadable(usageDb.db) }],
    ),
  ]);

  const address = (port: number) => `127.0.0.1:${port}`;
  // Edge needs the agent's address and the agent needs edge's URL: the agent's port is chosen first.
  const agentPort = await freePort();
  // The services of this process are called directly through the same typed clients (no serialization, no
  // socket); their gRPC ports stay open for other callers. The agent starts after edge, so it is called over gRPC.
  const clients = {
    auth: createInProcessClient(AuthServiceService, auth.handlers, { serviceName: 'auth', deadlineMs: RPC_DEADLINE_MS, logger: loggers.auth }),
    router: createInProcessClient(RouterServiceService, router.handlers, { serviceName: 'router', deadlineMs: RPC_DEADLINE_MS, logger: loggers.router }),
    pricing: createInProcessClient(PricingServiceService, pricing.handlers, { serviceName: 'pricing', deadlineMs: RPC_DEADLINE_MS, logger: loggers.pricing }),
    ledger: createInProcessClient(LedgerServiceService, ledger.handlers, { serviceName: 'ledger', deadlineMs: RPC_DEADLINE_MS, logger: loggers.ledger }),
  };
  const agentClient = createPromiseClient(AgentServiceService, { serviceName: 'agent', address: address(agentPort), deadlineMs: AGENT_DEADLINE_MS });
  const usageClient = createInProcessClient(UsageServiceService, usage.handlers, { serviceName: 'usage', deadlineMs: USAGE_DEADLINE_MS, logger: loggers.usage });
  const providerEnvironment = {
    UPSTREAM_BASE_URL: simulator.baseUrl,
    ...Object.fromEntries(Object.values(catalog.providers).map(({ api_key_env }) => [api_key_env, SIMULATOR_KEY])),
  };
  const provider = createProviderClient({ providers: catalog.providers, env: providerEnvironment });
  const edgeLogger = logger.child({ component: 'edge' });
  const routingPolicy = holdRoutingPolicy(clients.router, edgeLogger);
  const probes = { auth: grpcHealthProbe('auth', address(auth.grpc.port), RPC_DEADLINE_MS), router: grpcHealthProbe('router', address(router.grpc.port), RPC_DEADLINE_MS) };
  const readiness = [probes.auth, routingReadiness(probes.router, routingPolicy)];
  const gatewayCatalog = gatewayCatalogFrom(catalog, providerEnvironment);
  const gatewaySettings = gatewaySettingsFrom(
    {
      SECRETS_KEY: secrets.secretsKey,
      RECORD_DEADLINE_MS: 250,
      RECORD_ANSWER_GRACE_MS: 2000,
    },
    // The packaged catalog, for the process's life.
    { current: () => gatewayCatalog },
  );
  const priceList = holdPriceList(clients.pricing, edgeLogger);
  const edgeLeases = holdLeases({ ledger: clients.ledger, logger: edgeLogger, settings: leaseSettingsFrom(loadConfig(leaseConfigShape, {})) });
  leases = edgeLeases;
  const edge = createEdgeApp({
    auth: clients.auth,
    readiness,
    settings: {
      accessTokenSecret: secrets.accessTokenSecret,
      agentChatDeadlineMs: AGENT_CHAT_DEADLINE_MS,
      cookieSecure: false,
      bodyLimitBytes: 1024 * 1024,
      trustProxy: false,
    },
    logger: edgeLogger,
    gateway: { ...clients, priceList, routingPolicy, leases: edgeLeases, provider, settings: gatewaySettings, principals },
    agent: agentClient,
    usage: usageClient,
  });
  const port = await edge.start({ host: config.HOST, port: config.PORT, keepAliveTimeoutMs: config.HTTP_KEEP_ALIVE_TIMEOUT_MS });

  const agentSettings = defaultAgentSettings(Buffer.from(secrets.skillCredentialsKey, 'hex'));
  const gateway = createGatewayClient({
    baseUrl: `http://127.0.0.1:${port}`,
    platformSecret: agentPlatformSecret,
    timeoutMs: 60_000,
    probeTimeoutMs: RPC_DEADLINE_MS,
  });
  const authProbe = grpcHealthProbe('auth', address(auth.grpc.port), RPC_DEADLINE_MS);
  const agentProbes = [
    authProbe,
    grpcHealthProbe('ledger', address(ledger.grpc.port), RPC_DEADLINE_MS),
    grpcHealthProbe('router', address(router.grpc.port), RPC_DEADLINE_MS),
    grpcHealthProbe('pricing', address(pricing.grpc.port), RPC_DEADLINE_MS),
  ];
  const agent = await startAgentServer(
    {
      db: agentDb.db,
      ...clients,
      gateway,
      healthProbes: [...agentProbes.map(grpcDependency), gatewayDependency(gateway), databaseDependency(agentDb.db)],
      settings: agentSettings,
      logger: logger.child({ component: 'agent' }),
    },
    { host: '127.0.0.1', port: agentPort },
    [...databaseCheck, servingCheck(authProbe)],
    { enabled: true, intervalMs: agentSettings.schedulerIntervalMs },
  );

  const demo = await ensureDemoAccount(authDb.db);
  await ensureDemoAgent(authDb.db);

  return {
    port,
    logger,
    printWelcome: (metricsUrl) => printWelcome(`http://${config.HOST}:${port}`, metricsUrl, demo, config.DATA_DIR),
    stop: async () => {
      await edge.stop();
      priceList.stop();
      routingPolicy.stop();
      await edgeLeases.stop();
      await provider.close();
      for (const closable of [...Object.values(clients), agentClient, usageClient, ...Object.values(probes), ...agentProbes]) closable.close();
      await Promise.all([agent.stop(), auth.stop(), router.stop(), pricing.stop(), ledger.stop(), usage.stop()]);
      await simulator.close();
      await pglite.close();
    },
  };
}

function printWelcome(baseUrl: string, metricsUrl: string, demo: DemoAccount, dataDir: string): void {
  const lines = [
    '',
    `The gateway is running at ${baseUrl} (every service in this process; the model provider is the built-in simulator).`,
    '',
  ];
  if (demo.created) {
    lines.push(
      'A demo organization was created. These are shown once; only their hashes are stored:',
      `  owner:    ${demo.email}`,
      `  password: ${demo.password}`,
      `  API key:  ${demo.apiKey}`,
      '',
      'Try it:',
      `  curl -s ${baseUrl}/api/gateway/v1/chat/completions \\`,
      `    -H "Authorization: Bearer ${demo.apiKey}" -H "Content-Type: application/json" \\`,
      `    -d '{"model":"auto","messages":[{"role":"user","content":"Hello!"}]}' -D -`,
    );
  } else {
    lines.push(
      `The demo owner ${demo.email} exists; its password and first API key were printed at first start.`,
      `Sign in and create a key (see README), or delete ${dataDir} to start over.`,
    );
  }
  lines.push(
    '',
    `The Console: ${baseUrl}/console/ (sign in as the demo owner: keys, usage and quota).`,
    `The agent API (${baseUrl}/api/agent/...) answers the demo owner once signed in; see README, "The agent API".`,
    `Prometheus metrics: ${metricsUrl}`,
    '',
    'Ctrl-C stops it.',
    '',
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}
