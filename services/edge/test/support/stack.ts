import { randomBytes } from 'node:crypto';
import { testRedisUrl } from '../../../../test/support/databases';
import { startService, type ServiceProcess } from '../../../../test/support/processes';
import { findCredentials } from '../../../../test/support/secrets-scan';

/**
 * For the beforeAll that starts processes: on a loaded machine a start can
 * outlast jest's default, and a hook that times out would leave its
 * processes running after the suite.
 */
export const STARTUP_TIMEOUT_MS = 120_000;

/** A real auth process and a real edge process in front of it. */
export interface EdgeStack {
  auth: ServiceProcess;
  edge: ServiceProcess;
  /** Base URL of edge, e.g. http://127.0.0.1:43121. */
  url: string;
  accessTokenSecret: string;
  /** Every credential-shaped string either process has logged so far. */
  loggedCredentials(): string[];
  stop(): Promise<void>;
}

export interface StackOptions {
  databaseUrl: string;
  authEnv?: Record<string, string>;
  edgeEnv?: Record<string, string>;
}

export function startAuthProcess(databaseUrl: string, accessTokenSecret: string, env: Record<string, string> = {}): Promise<ServiceProcess> {
  return startService({
    name: 'auth',
    entry: 'services/auth/src/main.ts',
    env: {
      DATABASE_URL: databaseUrl,
      REDIS_URL: testRedisUrl(),
      ACCESS_TOKEN_SECRET: accessTokenSecret,
      SECRETS_KEY: randomBytes(32).toString('hex'),
      KEY_ENVIRONMENT: 'test',
      MIGRATE_ON_START: 'true',
      ...env,
    },
  });
}

export async function startEdgeStack({ databaseUrl, authEnv = {}, edgeEnv = {} }: StackOptions): Promise<EdgeStack> {
  const accessTokenSecret = randomBytes(32).toString('hex');
  const auth = await startAuthProcess(databaseUrl, accessTokenSecret, authEnv);
  let edge: ServiceProcess;
  try {
    edge = await startService({
      name: 'edge',
      entry: 'services/edge/src/main.ts',
      // A generous deadline: a sign-in costs a deliberately slow password hash, and test machines are shared.
      env: { AUTH_ADDRESS: auth.address, ACCESS_TOKEN_SECRET: accessTokenSecret, RPC_DEADLINE_MS: '15000', ...edgeEnv },
    });
  } catch (error) {
    await auth.stop();
    throw error;
  }
  return {
    auth,
    edge,
    url: `http://127.0.0.1:${edge.port}`,
    accessTokenSecret,
    loggedCredentials: () => [auth, edge].flatMap((process) => findCredentials(process.logs())),
    stop: async () => {
      await Promise.all([edge.stop(), auth.stop()]);
    },
  };
}
