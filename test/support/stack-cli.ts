import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { loadConfig } from '@gateway/lib/config';
import { buildAll } from '../../deploy/build';
import { logDir } from './paths';
import { serviceNames, startStack, type StackOptions } from './stack';
import { LOCAL_RESTART_POLICY } from './supervisor';

/**
 * `npm run stack`: every service as its own process against DATABASE_URL and
 * REDIS_URL, the local stand-in for the cluster. Ctrl-C drains them all.
 * OTEL_* variables set here reach every process (OTEL_EXPORTER_OTLP_ENDPOINT
 * sends their traces to a collector).
 *
 * Options: --compiled (build, then run the compiled JavaScript, as the
 * images do), --replicas router=2,edge=2 (processes per service; the others
 * reach them round robin).
 *
 * A process that exits on its own (a crash, kill -9 from a shell) is started
 * again on its port after 1 s, then 2, 4, ... up to 30 s if it keeps
 * crashing, as Kubernetes restarts a container; each restart is printed.
 *
 * It prints, and takes, the Redis namespaces of its auth and ledger
 * (PRINCIPAL_EVENTS_PREFIX, LEDGER_REDIS_KEY_PREFIX), so that `npm run admin`
 * reaches the running stack at once, and writes its processes (pid, port,
 * log) to stack.json in the log folder while it runs.
 */
const { values: flags } = parseArgs({ options: { compiled: { type: 'boolean', default: false }, replicas: { type: 'string' } } });

/** What the services accept as a Redis namespace. */
const redisPrefix = z.string().regex(/^[A-Za-z0-9:_-]+$/, 'letters, digits and : _ -');

const replicasOption = z
  .string()
  .default('')
  .transform((text, context): StackOptions['replicas'] => {
    const replicas: NonNullable<StackOptions['replicas']> = {};
    for (const pair of text.split(',').filter(Boolean)) {
      const [name, count] = pair.split('=');
      const service = serviceNames.find((candidate) => candidate === name && candidate !== 'agent');
      const processes = Number(count);
      if (service === undefined || service === 'agent' || !Number.isInteger(processes) || processes < 1) {
        context.addIssue({ code: 'custom', message: `--replicas: "${pair}" is not <service>=<count>; services: ${serviceNames.filter((each) => each !== 'agent').join(', ')}` });
        return z.NEVER;
      }
      replicas[service] = processes;
    }
    return replicas;
  });

async function main(): Promise<void> {
  const config = loadConfig({
    DATABASE_URL: z.string().url(),
    REDIS_URL: z.string().url().default('redis://127.0.0.1:6379'),
    ACCESS_TOKEN_SECRET: z.string().min(32).optional(),
    SECRETS_KEY: z.string().regex(/^[0-9a-fA-F]{64}$/).optional(),
    SKILL_CREDENTIALS_KEY: z.string().regex(/^[0-9a-fA-F]{64}$/).optional(),
    AGENT_PLATFORM_SECRET: z.string().regex(/^pas_[0-9a-f]{48}$/).optional(),
    EDGE_PORT: z.coerce.number().int().default(8080),
    AUTH_PORT: z.coerce.number().int().default(50051),
    ROUTER_PORT: z.coerce.number().int().default(50052),
    PRICING_PORT: z.coerce.number().int().default(50053),
    LEDGER_PORT: z.coerce.number().int().default(50054),
    USAGE_PORT: z.coerce.number().int().default(50055),
    SIMULATOR_PORT: z.coerce.number().int().default(8090),
    AGENT_PORT: z.coerce.number().int().default(50056),
    PRINCIPAL_EVENTS_PREFIX: redisPrefix.optional(),
    LEDGER_REDIS_KEY_PREFIX: redisPrefix.optional(),
  });
  // A signal while the processes start: stop them as soon as the start settles, rather than leave them behind.
  let stopRequested = false;
  const stopWhileStarting = () => {
    stopRequested = true;
    console.log('Stopping once the processes being started are up (a failed start ends them itself)...');
  };
  process.on('SIGINT', stopWhileStarting);
  process.on('SIGTERM', stopWhileStarting);
  mkdirSync(logDir(), { recursive: true });
  const parsed = replicasOption.safeParse(flags.replicas);
  if (!parsed.success) throw new Error(parsed.error.issues.map((issue) => issue.message).join('\n'));
  const replicas = parsed.data;
  if (flags.compiled) await buildAll();
  const stack = await startStack({
    compiled: flags.compiled,
    replicas,
    // A process that crashes is started again, as the cluster would.
    restartCrashed: { ...LOCAL_RESTART_POLICY, log: (line) => console.log(`${new Date().toISOString()} ${line}`) },
    databaseUrl: config.DATABASE_URL,
    redisUrl: config.REDIS_URL,
    ports: {
      edge: config.EDGE_PORT,
      auth: config.AUTH_PORT,
      router: config.ROUTER_PORT,
      pricing: config.PRICING_PORT,
      ledger: config.LEDGER_PORT,
      usage: config.USAGE_PORT,
      simulator: config.SIMULATOR_PORT,
      agent: config.AGENT_PORT,
    },
    ...(config.ACCESS_TOKEN_SECRET ? { accessTokenSecret: config.ACCESS_TOKEN_SECRET } : {}),
    ...(config.SECRETS_KEY ? { secretsKey: config.SECRETS_KEY } : {}),
    ...(config.SKILL_CREDENTIALS_KEY ? { skillCredentialsKey: config.SKILL_CREDENTIALS_KEY } : {}),
    ...(config.AGENT_PLATFORM_SECRET ? { agentPlatformSecret: config.AGENT_PLATFORM_SECRET } : {}),
    ...(config.PRINCIPAL_EVENTS_PREFIX ? { principalEventsPrefix: config.PRINCIPAL_EVENTS_PREFIX } : {}),
    ...(config.LEDGER_REDIS_KEY_PREFIX ? { ledgerKeyPrefix: config.LEDGER_REDIS_KEY_PREFIX } : {}),
  });
  const processFile = join(logDir(), 'stack.json');
  const stop = () => {
    process.off('SIGINT', stopWhileStarting);
    process.off('SIGTERM', stopWhileStarting);
    void stack.stop().then(() => {
      rmSync(processFile, { force: true });
      process.exit(0);
    });
  };
  if (stopRequested) {
    stop();
    return;
  }
  writeFileSync(
    processFile,
    `${JSON.stringify(
      {
        cli_pid: process.pid,
        base_url: stack.baseUrl,
        principal_events_prefix: stack.principalEventsPrefix,
        ledger_redis_key_prefix: stack.ledgerKeyPrefix,
        processes: stack.processes().map(({ name, pid, port, metricsPort, logFile }) => ({ name, pid, port, metrics_port: metricsPort ?? null, log: logFile })),
      },
      null,
      2,
    )}\n`,
  );
  for (const service of stack.processes()) {
    const metrics = service.metricsPort === undefined ? '' : `  metrics http://127.0.0.1:${service.metricsPort}/metrics`;
    console.log(`${service.name.padEnd(10)} 127.0.0.1:${service.port}  (pid ${service.pid})${metrics}`);
  }
  console.log(`\nGateway:   ${stack.baseUrl}/api/gateway/v1  (model provider: the simulator at ${stack.simulatorUrl})`);
  console.log(`Agent API: ${stack.baseUrl}/api/agent  (sign in first; see README)`);
  console.log(`logs      ${logDir()}`);
  if (!config.ACCESS_TOKEN_SECRET) console.log('ACCESS_TOKEN_SECRET was generated for this run: sessions end when the stack stops.');
  if (!config.SKILL_CREDENTIALS_KEY) console.log('SKILL_CREDENTIALS_KEY was generated for this run: skill credentials stored now do not decrypt in the next run.');
  if (!config.AGENT_PLATFORM_SECRET) console.log("The agent's platform agent secret was issued for this run (npm run admin -- issue-agent-secret).");
  console.log(`processes ${processFile}`);
  // The URLs may hold passwords: the operator has them; only the namespaces are printed.
  console.log('\nAdmin commands reach this stack at once (npm -s run admin -- help) with its DATABASE_URL, REDIS_URL and:');
  console.log(`  export PRINCIPAL_EVENTS_PREFIX=${stack.principalEventsPrefix} LEDGER_REDIS_KEY_PREFIX=${stack.ledgerKeyPrefix}`);
  console.log('(give npm run stack the same two to keep them across runs.)');
  console.log('Ctrl-C stops every process.');
  process.off('SIGINT', stopWhileStarting);
  process.off('SIGTERM', stopWhileStarting);
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
