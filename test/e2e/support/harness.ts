// First: the admin commands read the catalog's plan names when they load.
import { TEST_CATALOG_PATH } from './catalog';
import OpenAI from 'openai';
import { AGENT_SCHEMA, type AgentDatabase } from '@gateway/agent/db';
import { AUTH_SCHEMA, type AuthDatabase } from '@gateway/auth/db';
import { LEDGER_SCHEMA, type LedgerDatabase } from '@gateway/ledger/db';
import { connectDatabase, type Database } from '@gateway/lib/db';
import { createTestDatabase, testRedisUrl } from '../../support/databases';
import type { ServiceProcess } from '../../support/processes';
import { findCredentials } from '../../support/secrets-scan';
import { startStack, type ServiceName, type Stack, type StackOptions } from '../../support/stack';
import { seedCaller, type Caller, type CallerOptions } from './seed';

/**
 * One end-to-end suite's world: its own database, the whole multi-process
 * stack on the test catalog, and connections to the auth, ledger and agent
 * schemas for seeding and for reading what the services wrote.
 */
export interface E2e {
  stack: Stack;
  /** `{base_url}/api/gateway/v1`, the `baseURL` a client is given. */
  gatewayUrl: string;
  /** The suite's database, for commands an operator runs against it (`npm run admin`). */
  databaseUrl: string;
  auth: Database<AuthDatabase>;
  ledger: Database<LedgerDatabase>;
  agent: Database<AgentDatabase>;
  secretsKey: Buffer;
  seed(options: CallerOptions): Promise<Caller>;
  /** The official client as a caller configures it: a credential, the base URL, no retries. */
  client(credential: string, defaultHeaders?: Record<string, string>): OpenAI;
  /** Restarts a stopped or killed service, keeping the old process for the log scan. */
  restart(name: ServiceName): Promise<void>;
  /** Credential-shaped strings (and the given literals) in the logs of every process this suite started. */
  credentialsInLogs(literals?: readonly string[]): string[];
  close(): Promise<void>;
}

/** `redisUrl`: a Redis of the suite's own (one it pauses or kills); the shared one when absent. */
export type E2eOptions = Pick<StackOptions, 'env' | 'serviceEnv' | 'compiled' | 'replicas'> & Partial<Pick<StackOptions, 'redisUrl'>>;

/**
 * The ledger record is best-effort within RECORD_DEADLINE_MS (250 ms by
 * default), after which a response goes out unmetered. The suites assert
 * metering; on a machine busy with other suites a record can take longer
 * than that, so they give it ample time. The degradation suite stops the
 * ledger for real, which fails at once whatever the deadline.
 */
const EDGE_DEFAULTS = { RECORD_DEADLINE_MS: '10000' };

export async function startE2e(label: string, options: E2eOptions = {}): Promise<E2e> {
  const database = await createTestDatabase(label);
  let started: Stack;
  try {
    started = await startStack({
      databaseUrl: database.url,
      redisUrl: options.redisUrl ?? testRedisUrl(),
      catalogPath: TEST_CATALOG_PATH,
      ...(options.env ? { env: options.env } : {}),
      ...(options.compiled ? { compiled: true } : {}),
      ...(options.replicas ? { replicas: options.replicas } : {}),
      serviceEnv: { ...options.serviceEnv, edge: { ...EDGE_DEFAULTS, ...options.serviceEnv?.edge } },
    });
  } catch (error) {
    await database.drop();
    throw error;
  }
  const auth = connectDatabase<AuthDatabase>({ kind: 'postgres', url: database.url, poolSize: 2 }, AUTH_SCHEMA);
  const ledger = connectDatabase<LedgerDatabase>({ kind: 'postgres', url: database.url, poolSize: 2 }, LEDGER_SCHEMA);
  const agent = connectDatabase<AgentDatabase>({ kind: 'postgres', url: database.url, poolSize: 2 }, AGENT_SCHEMA);
  const secretsKey = Buffer.from(started.secretsKey, 'hex');
  const gatewayUrl = `${started.baseUrl}/api/gateway/v1`;
  const retired: ServiceProcess[] = [];

  return {
    stack: started,
    gatewayUrl,
    databaseUrl: database.url,
    auth,
    ledger,
    agent,
    secretsKey,
    seed: (seedOptions) => seedCaller(auth.db, secretsKey, seedOptions),
    client: (credential, defaultHeaders) =>
      new OpenAI({ apiKey: credential, baseURL: gatewayUrl, maxRetries: 0, timeout: 30_000, ...(defaultHeaders ? { defaultHeaders } : {}) }),
    restart: async (name) => {
      retired.push(started.services[name]);
      await started.restart(name);
    },
    credentialsInLogs: (literals = []) =>
      [...retired, ...started.processes()].flatMap((service) => {
        const logs = service.logs();
        const found = [...findCredentials(logs), ...literals.filter((literal) => logs.includes(literal))];
        // Name the process, never the value.
        return found.map(() => `${service.name} (${service.logFile})`);
      }),
    close: async () => {
      await Promise.all([auth.destroy(), ledger.destroy(), agent.destroy()]);
      await started.stop();
      await database.drop();
    },
  };
}

export type { Caller };
