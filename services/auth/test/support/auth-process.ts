import { randomBytes } from 'node:crypto';
import { credentials, makeGenericClientConstructor, Metadata, type ServiceDefinition, type ServiceError } from '@grpc/grpc-js';
import { createPromiseClient, type PromiseClient } from '@gateway/lib/grpc';
import { AuthServiceService } from '@gateway/proto/gen/gateway/auth/v1/auth';
import { testRedisUrl } from '../../../../test/support/databases';
import { PROCESS_READY_TIMEOUT_MS, startService, type ServiceProcess } from '../../../../test/support/processes';

export type AuthClient = PromiseClient<typeof AuthServiceService>;

/** A real auth process on a test database, and a client for it. */
export interface RunningAuth {
  process: ServiceProcess;
  client: AuthClient;
  /** Closes the client and stops the process (SIGTERM, drain). */
  stop(): Promise<void>;
}

/** Generous for a process that compiles its TypeScript at start on a busy machine. */
export const AUTH_START_TIMEOUT_MS = PROCESS_READY_TIMEOUT_MS;

export async function startAuth(databaseUrl: string, env: Record<string, string> = {}): Promise<RunningAuth> {
  const process = await startService({
    name: 'auth',
    entry: 'services/auth/src/main.ts',
    readyTimeoutMs: AUTH_START_TIMEOUT_MS,
    env: {
      DATABASE_URL: databaseUrl,
      REDIS_URL: testRedisUrl(),
      ACCESS_TOKEN_SECRET: randomBytes(32).toString('hex'),
      SECRETS_KEY: randomBytes(32).toString('hex'),
      KEY_ENVIRONMENT: 'test',
      MIGRATE_ON_START: 'true',
      ...env,
    },
  });
  const client = createPromiseClient(AuthServiceService, { serviceName: 'auth', address: process.address, deadlineMs: 2000 });
  return {
    process,
    client,
    stop: async () => {
      client.close();
      await process.stop();
    },
  };
}

/**
 * Several auth processes on one database (replicas), started side by side.
 * If one fails to start, the others are stopped before the error is thrown.
 */
export async function startAuthReplicas(databaseUrl: string, count: number): Promise<RunningAuth[]> {
  const outcomes = await Promise.allSettled(Array.from({ length: count }, () => startAuth(databaseUrl)));
  const started = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  const failure = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failure) {
    await Promise.all(started.map((replica) => replica.stop()));
    throw failure.reason;
  }
  return started;
}

/** A failed call exactly as it crossed the wire: status code, details and trailers. */
export interface WireFailure {
  code: number;
  details: string;
  trailers: Record<string, unknown>;
}

/**
 * Calls Authenticate with a bare grpc-js client, without the error mapping
 * of the promise client, so tests can compare rejections byte for byte. The
 * HTTP/2 `date` header is left out: it is the clock, not the answer.
 */
export async function authenticateOnTheWire(address: string, credential: string, agentId = ''): Promise<WireFailure | 'accepted'> {
  const Client = makeGenericClientConstructor(AuthServiceService as unknown as ServiceDefinition, 'auth');
  const client = new Client(address, credentials.createInsecure());
  type Callback = (error: ServiceError | null) => void;
  const authenticate = (client as unknown as Record<string, (request: unknown, metadata: Metadata, options: object, callback: Callback) => void>)
    .authenticate;
  if (!authenticate) throw new Error('the generated client lacks authenticate');
  try {
    return await new Promise((resolve) => {
      authenticate.call(client, { credential, agentId }, new Metadata(), { deadline: Date.now() + 2000 }, (error) => {
        if (!error) return resolve('accepted');
        const { date: _clock, ...trailers } = error.metadata.toJSON();
        resolve({ code: error.code, details: error.details, trailers });
      });
    });
  } finally {
    client.close();
  }
}
