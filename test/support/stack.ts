import { randomBytes } from 'node:crypto';
import { issueAgentSecret } from '@gateway/auth/admin';
import { AUTH_SCHEMA, type AuthDatabase } from '@gateway/auth/db';
import { connectDatabase } from '@gateway/lib/db';
import { freePort } from '@gateway/lib/net';
import { compiledEntry, SERVICE_NODE_FLAGS } from '../../deploy/build';
import { startService, type ServiceProcess } from './processes';
import { supervise, type RestartPolicy, type Supervision } from './supervisor';

/**
 * The multi-process stack: one real process per service, wired by address,
 * against a real Postgres and Redis, with the simulator as the model
 * provider. `npm run stack` runs it for people; the end-to-end suites and the
 * benchmark run it for themselves.
 */
export interface StackOptions {
  databaseUrl: string;
  redisUrl: string;
  /** Extra environment for every process (e.g. smaller throttle limits in tests). */
  env?: Record<string, string>;
  /** Extra environment for one service. */
  serviceEnv?: Partial<Record<ServiceName, Record<string, string>>>;
  /** Fixed ports for people; tests use 0 (any free port). */
  ports?: Partial<Record<ServiceName, number>>;
  /** The model provider edge calls, as its UPSTREAM_BASE_URL (e.g. a benchmark's upstream); the stack's simulator when absent. */
  upstreamBaseUrl?: string;
  /** A catalog file other than the shipped one (tests use small allowances). */
  catalogPath?: string;
  /** How long each process may take to report `listening` (startService's default when absent). */
  readyTimeoutMs?: number;
  /** Extra node options for one service (a profiler's), after the flags every service runs with (SERVICE_NODE_FLAGS). */
  nodeArgs?: Partial<Record<ServiceName, readonly string[]>>;
  /** Shared secrets; generated when absent. */
  accessTokenSecret?: string;
  secretsKey?: string;
  /** The agent's key for skill credentials at rest; generated when absent. */
  skillCredentialsKey?: string;
  /** The platform agent secret the agent calls the gateway with; issued through the admin command when absent. */
  agentPlatformSecret?: string;
  /** Namespaces on the shared Redis (auth's principal invalidations, the ledger's keys); unique ones are made up when absent. */
  principalEventsPrefix?: string;
  ledgerKeyPrefix?: string;
  /** Runs the compiled JavaScript (`npm run build`'s services/<svc>/dist/main.js) instead of the TypeScript through tsx. */
  compiled?: boolean;
  /**
   * Processes per service (default 1). The others reach a service that has
   * several at all of their addresses (`ipv4:127.0.0.1:P1,127.0.0.1:P2`),
   * calls spread round robin, as a headless Service's pods are in Kubernetes.
   * Not for the agent, whose address edge learns before it starts.
   */
  replicas?: Partial<Record<Exclude<ServiceName, 'agent'>, number>>;
  /**
   * Restart a process that exits unasked (a crash, a kill from outside), on
   * its port, with backoff, as Kubernetes restarts a container: `npm run
   * stack` and the fault benchmark set it. Off by default: a test sees a
   * crash rather than a process quietly replaced. Either way a process that
   * its handle's stop() or kill() ended stays down.
   */
  restartCrashed?: RestartPolicy;
}

export const serviceNames = ['simulator', 'router', 'pricing', 'ledger', 'auth', 'usage', 'edge', 'agent'] as const;
export type ServiceName = (typeof serviceNames)[number];

export interface Stack {
  services: Record<ServiceName, ServiceProcess>;
  baseUrl: string;
  simulatorUrl: string;
  accessTokenSecret: string;
  secretsKey: string;
  skillCredentialsKey: string;
  agentPlatformSecret: string;
  /** The ledger's Redis key prefix, unique to this stack. */
  ledgerKeyPrefix: string;
  /** Namespace of auth's principal invalidations, unique to this stack (what the admin command publishes on). */
  principalEventsPrefix: string;
  /** The key every managed call goes out with (the simulator accepts any). */
  managedProviderKey: string;
  /** Every process of the stack, extra replicas included. */
  processes(): ServiceProcess[];
  /** The processes of one service that its clients' target names (the `replicas` option), the first being services[name]. */
  replicasOf(name: ServiceName): ServiceProcess[];
  /** Restarts one service with the same environment (after stop or kill). */
  restart(name: ServiceName): Promise<ServiceProcess>;
  /** Starts one more process of a service with the same environment on a port of its own (a replica); stop() ends it too. */
  startReplica(name: ServiceName): Promise<ServiceProcess>;
  stop(): Promise<void>;
}

const sourceEntry = (name: ServiceName) => `services/${name}/src/main.ts`;

/**
 * The OpenTelemetry variables of the environment the stack was started in
 * (an OTLP endpoint, a sampler), for every process, which otherwise gets
 * only what the stack gives it. The service name stays each process's own.
 */
function telemetryEnvironment(environment: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    Object.entries(environment).filter((entry): entry is [string, string] => entry[0].startsWith('OTEL_') && entry[0] !== 'OTEL_SERVICE_NAME' && entry[1] !== undefined),
  );
}

/** The gRPC target of a service's processes: one address, or all of them for round robin. */
function target(processes: readonly ServiceProcess[]): string {
  return processes.length === 1 ? (processes[0]?.address ?? '') : `ipv4:${processes.map((process) => process.address).join(',')}`;
}

/** Every provider of the catalog gets the same development key, since the simulator stands in for all. */
const MANAGED_KEY_VARIABLES = ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GEMINI_API_KEY', 'SIMULATOR_API_KEY'];

export async function startStack(options: StackOptions): Promise<Stack> {
  const accessTokenSecret = options.accessTokenSecret ?? randomBytes(32).toString('hex');
  const secretsKey = options.secretsKey ?? randomBytes(32).toString('hex');
  const ledgerKeyPrefix = options.ledgerKeyPrefix ?? `ledger-${randomBytes(4).toString('hex')}`;
  // Auth and edge of this stack only: invalidations of another stack on the same Redis never reach them.
  const principalEventsPrefix = options.principalEventsPrefix ?? `gateway-${randomBytes(4).toString('hex')}`;
  const managedProviderKey = `sim-managed-${randomBytes(8).toString('hex')}`;
  const skillCredentialsKey = options.skillCredentialsKey ?? randomBytes(32).toString('hex');
  const common = { ...telemetryEnvironment(process.env), ...options.env, ...(options.catalogPath ? { CATALOG_PATH: options.catalogPath } : {}) };
  const environments = {} as Record<ServiceName, Record<string, string>>;
  const services = {} as Record<ServiceName, ServiceProcess>;
  const members = {} as Record<ServiceName, ServiceProcess[]>;
  const replicas: ServiceProcess[] = [];
  const launch = (name: ServiceName, env: Record<string, string>) =>
    startService({
      name,
      entry: options.compiled ? compiledEntry(name) : sourceEntry(name),
      env,
      readyTimeoutMs: options.readyTimeoutMs,
      nodeArgs: [...SERVICE_NODE_FLAGS, ...(options.nodeArgs?.[name] ?? [])],
    });

  // Every start in progress, so a failed start can wait for the others before ending them all.
  const starting: Array<Promise<ServiceProcess>> = [];
  const launchTracked = (name: ServiceName, env: Record<string, string>) => {
    const started = launch(name, env);
    starting.push(started);
    return started;
  };
  /** Starts a service's processes (the first on its fixed port, if it has one) and returns its gRPC target. */
  const start = async (name: ServiceName, env: Record<string, string>) => {
    environments[name] = { ...common, PORT: String(options.ports?.[name] ?? 0), ...env, ...options.serviceEnv?.[name] };
    const count = name === 'agent' ? 1 : (options.replicas?.[name] ?? 1);
    const extra = Array.from({ length: count - 1 }, () => launchTracked(name, { ...environments[name], PORT: '0' }));
    const [first, ...others] = await Promise.all([launchTracked(name, environments[name]), ...extra]);
    if (!first) throw new Error(`${name}: no process started`);
    services[name] = first;
    replicas.push(...others);
    members[name] = [first, ...others];
    for (const process of members[name]) supervised(name, process);
    return { process: first, target: target(members[name]) };
  };
  const supervisions: Supervision[] = [];
  /** Puts a process under the restart policy, if there is one; a restart takes its place everywhere the stack holds it. */
  const supervised = (name: ServiceName, process: ServiceProcess) => {
    if (!options.restartCrashed) return process;
    const relaunch = () => launch(name, { ...environments[name], PORT: String(process.port) });
    supervisions.push(
      supervise(process, relaunch, options.restartCrashed, (previous, next) => {
        if (services[name] === previous) services[name] = next;
        members[name] = members[name].map((member) => (member === previous ? next : member));
        const replica = replicas.indexOf(previous);
        if (replica >= 0) replicas[replica] = next;
      }),
    );
    return process;
  };
  const stopAll = async () => {
    for (const supervision of supervisions) supervision.stop();
    await Promise.all([...replicas, ...Object.values(services)].map((service) => service.stop()));
  };

  try {
    const [simulator, router, pricing, ledger, auth, usage] = await Promise.all([
      start('simulator', {}),
      start('router', {}),
      start('pricing', {}),
      start('ledger', {
        DATABASE_URL: options.databaseUrl,
        REDIS_URL: options.redisUrl,
        REDIS_KEY_PREFIX: ledgerKeyPrefix,
        MIGRATE_ON_START: 'true',
      }),
      start('auth', {
        DATABASE_URL: options.databaseUrl,
        REDIS_URL: options.redisUrl,
        PRINCIPAL_EVENTS_PREFIX: principalEventsPrefix,
        ACCESS_TOKEN_SECRET: accessTokenSecret,
        SECRETS_KEY: secretsKey,
        MIGRATE_ON_START: 'true',
      }),
      // Reads the ledger's tables as the role the ledger's migrations create; it serves once they have run.
      start('usage', { DATABASE_URL: options.databaseUrl }),
    ]);
    const simulatorUrl = `http://127.0.0.1:${simulator.process.port}`;
    const agentPlatformSecret = options.agentPlatformSecret ?? (await issuePlatformSecret(options.databaseUrl));
    // Edge needs the agent's address and the agent needs edge's URL: the agent's port is chosen first.
    const agentPort = options.ports?.agent || (await freePort());
    await start('edge', {
      AUTH_ADDRESS: auth.target,
      ROUTER_ADDRESS: router.target,
      PRICING_ADDRESS: pricing.target,
      LEDGER_ADDRESS: ledger.target,
      REDIS_URL: options.redisUrl,
      PRINCIPAL_EVENTS_PREFIX: principalEventsPrefix,
      USAGE_ADDRESS: usage.target,
      ACCESS_TOKEN_SECRET: accessTokenSecret,
      SECRETS_KEY: secretsKey,
      AGENT_ADDRESS: `127.0.0.1:${agentPort}`,
      UPSTREAM_BASE_URL: options.upstreamBaseUrl ?? `${simulatorUrl}/v1`,
      ...Object.fromEntries(MANAGED_KEY_VARIABLES.map((variable) => [variable, managedProviderKey])),
    });
    await start('agent', {
      PORT: String(agentPort),
      DATABASE_URL: options.databaseUrl,
      MIGRATE_ON_START: 'true',
      AUTH_ADDRESS: auth.target,
      LEDGER_ADDRESS: ledger.target,
      ROUTER_ADDRESS: router.target,
      PRICING_ADDRESS: pricing.target,
      GATEWAY_URL: `http://127.0.0.1:${services.edge.port}`,
      AGENT_PLATFORM_SECRET: agentPlatformSecret,
      SKILL_CREDENTIALS_KEY: skillCredentialsKey,
    });
    return {
      services,
      baseUrl: `http://127.0.0.1:${services.edge.port}`,
      simulatorUrl,
      accessTokenSecret,
      secretsKey,
      skillCredentialsKey,
      agentPlatformSecret,
      ledgerKeyPrefix,
      principalEventsPrefix,
      managedProviderKey,
      processes: () => [...Object.values(services), ...replicas],
      replicasOf: (name) => [...members[name]],
      restart: async (name) => {
        // Same port as before, so the other services' addresses stay right.
        services[name] = supervised(name, await launch(name, { ...environments[name], PORT: String(services[name].port) }));
        members[name] = [services[name], ...members[name].slice(1)];
        return services[name];
      },
      startReplica: async (name) => {
        const replica = supervised(name, await launch(name, { ...environments[name], PORT: '0' }));
        replicas.push(replica);
        return replica;
      },
      stop: stopAll,
    };
  } catch (error) {
    // One service failed; the others may still be starting and would be left running.
    const settled = await Promise.allSettled(starting);
    await Promise.all(settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value.kill()] : [])));
    throw error;
  }
}

/** A platform agent secret for the agent process, issued the way an operator does (the admin command). */
async function issuePlatformSecret(databaseUrl: string): Promise<string> {
  const database = connectDatabase<AuthDatabase>({ kind: 'postgres', url: databaseUrl, poolSize: 1 }, AUTH_SCHEMA);
  try {
    return (await issueAgentSecret(database.db, { description: 'agent service (local stack)' })).agentSecret;
  } finally {
    await database.destroy();
  }
}
