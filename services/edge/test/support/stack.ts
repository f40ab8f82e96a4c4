import { testRedisUrl } from '../../../../test/support/databases';
import type { ServiceProcess } from '../../../../test/support/processes';
import { findCredentials } from '../../../../test/support/secrets-scan';
import { startStack } from '../../../../test/support/stack';

/**
 * For the beforeAll that starts processes: on a loaded machine a start can
 * outlast jest's default, and a hook that times out would leave its
 * processes running after the suite.
 */
export const STARTUP_TIMEOUT_MS = 120_000;

/** The stack's auth and edge processes, which these suites talk to. */
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

/** The whole stack (every service a real process), seen from edge's side. */
export async function startEdgeStack({ databaseUrl, authEnv = {}, edgeEnv = {} }: StackOptions): Promise<EdgeStack> {
  const stack = await startStack({
    databaseUrl,
    redisUrl: testRedisUrl(),
    serviceEnv: {
      auth: { KEY_ENVIRONMENT: 'test', ...authEnv },
      // A generous deadline: a sign-in costs a deliberately slow password hash, and test machines are shared.
      edge: { RPC_DEADLINE_MS: '15000', ...edgeEnv },
    },
  });
  return {
    auth: stack.services.auth,
    edge: stack.services.edge,
    url: stack.baseUrl,
    accessTokenSecret: stack.accessTokenSecret,
    loggedCredentials: () => stack.processes().flatMap((process) => findCredentials(process.logs())),
    stop: () => stack.stop(),
  };
}
