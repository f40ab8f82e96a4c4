import { randomUUID } from 'node:crypto';
import { createLogger } from '@gateway/lib/logging';
import { createRedis, type Redis } from '@gateway/lib/redis';
import { testRedisUrl } from '../../../test/support/databases';
import { EVERY_ORGANIZATION } from '@gateway/lib/allowance-changes';
import { redisAllowanceChanges } from '../src/leases/redis-changes';
import { firstConnection } from '../src/redis/availability';
import { ledgerKeys } from '../src/redis/keys';
import { eventually, uniquePrefix } from './support/ledger';

/**
 * The ledger's subscription to allowance changes on a real Redis, through a connection Redis
 * itself drops, beside another ledger process's subscription that stays up.
 */
describe('redisAllowanceChanges', () => {
  const channel = ledgerKeys(uniquePrefix('changes')).allowanceChanges;
  const name = `test-allowance-changes-${randomUUID()}`;
  let subscriber: Redis;
  let othersSubscriber: Redis;
  let commands: Redis;
  const heard: string[] = [];
  const othersHeard: string[] = [];
  const silent = createLogger({ service: 'test', level: 'silent' });
  const announceEverywhere = () => commands.publish(channel, EVERY_ORGANIZATION).then(() => undefined);

  beforeAll(async () => {
    subscriber = createRedis(testRedisUrl(), { name });
    othersSubscriber = createRedis(testRedisUrl());
    commands = createRedis(testRedisUrl());
    const changes = redisAllowanceChanges(subscriber, channel, silent, announceEverywhere);
    const othersChanges = redisAllowanceChanges(othersSubscriber, channel, silent, announceEverywhere);
    changes.subscribe((organizationId) => heard.push(organizationId));
    othersChanges.subscribe((organizationId) => othersHeard.push(organizationId));
    await Promise.all([subscriber, othersSubscriber, commands].map((connection) => firstConnection(connection, 5000)));
    await Promise.all([changes.subscribed(), othersChanges.subscribed()]);
  });

  afterAll(() => {
    subscriber?.disconnect();
    othersSubscriber?.disconnect();
    commands?.disconnect();
  });

  const heardOf = (organizationId: string, by = heard) => eventually(async () => (by.includes(organizationId) ? true : undefined), 15_000, `${organizationId || 'every organization'} heard`);

  it('passes on what is published, and has every process announce every organization once it is subscribed again after its connection was dropped', async () => {
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
    // The other process's holders may have followed a stream of this one: they hear it too.
    await heardOf(EVERY_ORGANIZATION, othersHeard);

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
