import { Socket } from 'node:net';

/**
 * Finds the Postgres and Redis the tests run against: TEST_DATABASE_URL /
 * TEST_REDIS_URL if set, else servers listening on the standard local ports,
 * else containers started through testcontainers (machines with Docker).
 */
export interface Infra {
  databaseUrl: string;
  redisUrl: string;
  stop(): Promise<void>;
}

const LOCAL_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const LOCAL_REDIS_URL = 'redis://127.0.0.1:6379';

function listening(port: number, host = '127.0.0.1', timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (up: boolean) => {
      socket.destroy();
      resolve(up);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(port, host, () => done(true));
  });
}

export async function resolveInfra(): Promise<Infra> {
  const stops: Array<() => Promise<unknown>> = [];
  const pick = async (fromEnv: string | undefined, localUrl: string, port: number, start: () => Promise<string>) => {
    if (fromEnv) return fromEnv;
    if (await listening(port)) return localUrl;
    return start();
  };
  const databaseUrl = await pick(process.env.TEST_DATABASE_URL, LOCAL_DATABASE_URL, 5432, async () => {
    const { GenericContainer, Wait } = await import('testcontainers');
    const container = await new GenericContainer('postgres:15')
      .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: 'trust' })
      .withExposedPorts(5432)
      .withWaitStrategy(Wait.forLogMessage(/ready to accept connections/, 2))
      .start();
    stops.push(() => container.stop());
    return `postgres://postgres@${container.getHost()}:${container.getMappedPort(5432)}/postgres`;
  });
  const redisUrl = await pick(process.env.TEST_REDIS_URL, LOCAL_REDIS_URL, 6379, async () => {
    const { GenericContainer } = await import('testcontainers');
    const container = await new GenericContainer('redis:7').withExposedPorts(6379).start();
    stops.push(() => container.stop());
    return `redis://${container.getHost()}:${container.getMappedPort(6379)}`;
  });
  return { databaseUrl, redisUrl, stop: async () => void (await Promise.all(stops.map((stop) => stop()))) };
}
