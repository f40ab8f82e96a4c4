import { randomUUID } from 'node:crypto';
import { createLogger } from '@gateway/lib/logging';
import { createRedis, type Redis } from '@gateway/lib/redis';
import { testRedisUrl } from '../../../test/support/databases';
import { EVERY_ORGANIZATION } from '@gateway/lib/allowance-changes';
import { redisAllowanceChanges } from '../src/leases/redis-changes';
import { firstConnection } from '../src/redis/availability';
import { ledgerKeys } from '../src/redis/keys';
import { eventually, uniquePrefix } from './support/ledger';

/** The ledger's subscription to allowance changes on a real Redis, through a connection Redis itself drops. */
describe('redisAllowanceChanges', () => {
  const channel = ledgerKeys(uniquePrefix('changes')).allowanceChanges;
  const name = `test-allowance-changes-${randomUUID()}`;
  let subscriber: Redis;
  let commands: Redis;
  const heard: string[] = [];

  beforeAll(async () => {
    subscriber = createRedis(testRedisUrl(), { name });
    commands = createRedis(testRedisUrl());
    const changes = redisAllowanceChanges(subscriber, channel, createLogger({ service: 'test', level: 'silent' }));
    changes.subscribe((organizationId) => heard.push(organizationId));
    await Promise.all([subscriber, commands].map((connection) => firstConnection(connection, 5000)));
    await changes.subscribed();
  });

  afterAll(() => {
    subscriber?.disconnect();
    commands?.disconnect();
  });

  const heardOf = (organizationId: string) => eventually(async () => (heard.includes(organizationId) ? true : undefined), 15_000, `${organizationId || 'every organization'} heard`);

  it('passes on what is published, and announces every organization once it is subscribed again after its connection was dropped', async () => {
    const before = randomUUID();
    await commands.publish(channel, before);
    await heardOf(before);
    expect(heard).toEqual([before]);

    // Redis drops the subscriber's connection: what is published until it is back is not heard.
    const clients = String(await commands.call('CLIENT', 'LIST'));
    const id = /(?:^|\n)id=(\d+) .*\bname=(\S+)/g;
    const dropped = [...clients.matchAll(id)].find((match) => match[2] === name)?.[1];
    expect(dropped).toBeDefined();
    await commands.call('CLIENT', 'KILL', 'ID', String(dropped));
    await heardOf(EVERY_ORGANIZATION);

    const after = randomUUID();
    await commands.publish(channel, after);
    await heardOf(after);
    expect(heard.filter((organizationId) => organizationId === EVERY_ORGANIZATION)).toHaveLength(1);
  });

  it('announces every organization for an announcement it cannot read', async () => {
    heard.length = 0;
    await commands.publish(channel, 'not an organization id');
    await heardOf(EVERY_ORGANIZATION);
  });
});
