import { randomBytes } from 'node:crypto';
import { createRedisInvalidator, type PrincipalInvalidator } from '@gateway/auth/invalidation';
import { principalInvalidationChannels } from '@gateway/lib/principal-invalidation';
import { createRedis, type Redis } from '@gateway/lib/redis';
import { testRedisUrl } from '../../../test/support/databases';
import { eventually } from '../../../test/e2e/support/eventually';
import { PrincipalCache } from '../src/gateway/principal-cache';
import { listenForInvalidations } from '../src/gateway/principal-invalidations';
import { samplePrincipal } from '../../../test/support/principals';
import { capturedLogger } from '../../lib/test/support/captured-logger';

/**
 * auth's invalidator and edge's listener over a real Redis: an invalidation
 * returns only once every listening replica has dropped the organization's
 * principals, and a replica that loses its subscription stops caching.
 */
const ORG_A = '1f0b4c3e-8d2a-4e6b-9c1d-2a3b4c5d6e7f';
const ORG_B = '5b7e0a1c-3d2f-4e6a-8b9c-0d1e2f3a4b5c';
const TIMEOUT_MS = 500;

const connections: Redis[] = [];
const closers: Array<() => void> = [];

function redis(name?: string): Redis {
  const connection = createRedis(testRedisUrl(), name ? { name } : {});
  connections.push(connection);
  return connection;
}

afterAll(() => {
  for (const close of closers) close();
  for (const connection of connections) connection.disconnect();
});


/** A fresh pair of channels, so files running side by side never hear each other. */
function world() {
  const channels = principalInvalidationChannels(`test-${randomBytes(4).toString('hex')}`);
  const authLogs = capturedLogger({ service: 'edge', level: 'info' });
  const invalidator: PrincipalInvalidator = createRedisInvalidator({
    publisher: redis(),
    subscriber: redis(),
    channels,
    timeoutMs: TIMEOUT_MS,
    logger: authLogs.logger,
  });
  closers.push(() => invalidator.close());
  const replica = async (name: string, connectionName?: string) => {
    const cache = new PrincipalCache({ ttlMs: 30_000, maxEntries: 100 });
    const subscriber = redis(connectionName);
    const listener = listenForInvalidations({ subscriber, publisher: redis(), channels, cache, replica: name, logger: capturedLogger({ service: 'edge', level: 'info' }).logger });
    closers.push(() => listener.close());
    await eventually(async () => (cacheIsOn(cache) ? true : undefined), `replica ${name} to subscribe`);
    return { cache };
  };
  return { channels, invalidator, authLogs, replica };
}

/** Whether the cache keeps what it is given (it does only while subscribed). */
function cacheIsOn(cache: PrincipalCache): boolean {
  cache.store('probe', samplePrincipal(ORG_B), cache.ticket());
  return cache.get('probe') !== undefined;
}

it('returns once every listening replica has dropped the organization, and not before', async () => {
  const { invalidator, authLogs, replica } = world();
  const replicas = await Promise.all([replica('edge-1'), replica('edge-2')]);
  for (const { cache } of replicas) {
    cache.store('a', samplePrincipal(ORG_A), cache.ticket());
    cache.store('b', samplePrincipal(ORG_B), cache.ticket());
  }

  await invalidator.invalidateOrganization(ORG_A);

  for (const { cache } of replicas) {
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')?.organizationId).toBe(ORG_B);
  }
  expect(authLogs.lines().filter((line) => line.level === 'warn')).toEqual([]);
});

it('waits for a replica that received it but does not answer, then says so', async () => {
  const { channels, invalidator, authLogs } = world();
  const silent = redis();
  await silent.subscribe(channels.invalidations);

  await invalidator.invalidateOrganization(ORG_A);

  expect(authLogs.lines()).toEqual(
    expect.arrayContaining([expect.objectContaining({ level: 'warn', expected: 1, acknowledged: 0, organization_id: ORG_A })]),
  );
});

it('returns at once, with nothing to say, when no replica listens', async () => {
  const { invalidator, authLogs } = world();
  await invalidator.invalidateOrganization(ORG_A);
  expect(authLogs.lines().filter((line) => line.level === 'warn' || line.level === 'error')).toEqual([]);
});

it('stops caching while the subscription is lost, and starts again once it is back', async () => {
  const { replica } = world();
  const name = `edge-invalidations-${randomBytes(4).toString('hex')}`;
  const { cache } = await replica('edge-1', name);
  cache.store('a', samplePrincipal(ORG_A), cache.ticket());

  // The server ends the connection, as a Redis restart or a network cut would.
  const admin = redis();
  const clients = String(await admin.call('CLIENT', 'LIST'));
  const id = /(?:^|\n)id=(\d+) [^\n]*name=([^ ]+)/g;
  const ids = [...clients.matchAll(id)].filter((match) => match[2] === name).map((match) => match[1]);
  expect(ids).toHaveLength(1);
  await admin.call('CLIENT', 'KILL', 'ID', ids[0] ?? '');

  await eventually(async () => (cacheIsOn(cache) ? undefined : true), 'the cache to turn off');
  expect(cache.get('a')).toBeUndefined();
  // Back on once it has subscribed again by itself.
  await eventually(async () => (cacheIsOn(cache) ? true : undefined), 'the cache to turn on again');
});
