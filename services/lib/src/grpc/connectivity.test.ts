import { connectivityState, credentials, makeGenericClientConstructor, type ServiceDefinition } from '@grpc/grpc-js';
import { LedgerServiceService } from '@gateway/proto/gen/gateway/ledger/v1/ledger';
import { createLogger } from '../logging';
import { RECONNECT_CHANNEL_OPTIONS, ROUND_ROBIN } from './client';
import { followConnectivity, onTransitions } from './connectivity';
import { serveService, type ServiceServer } from './server';

/**
 * Edge uses its principal cache only while auth's channel is connected. The
 * servers end every connection after its age, and for the moment the client
 * takes to connect again the channel is not READY: read alone, that state
 * sent a call past the cache to wait on auth, once a minute. A real server
 * and a channel configured as lib's clients are.
 */
const definition = { getQuota: LedgerServiceService.getQuota };
const logger = createLogger({ service: 'test', level: 'silent' });

/** Resolves once `predicate` holds after some transition. */
function until(channel: Parameters<typeof onTransitions>[0], predicate: (from: connectivityState, to: connectivityState) => boolean): Promise<void> {
  return new Promise((resolve) => onTransitions(channel, (from, to) => predicate(from, to) && resolve()));
}

let server: ServiceServer<typeof definition> | undefined;

afterEach(async () => {
  await server?.stop(1000);
  server = undefined;
});

it('counts a channel connecting again after its server ended the connection in order as connected, and one that failed to connect as not', async () => {
  server = await serveService({
    definition,
    handlers: { getQuota: async () => ({ quota: undefined }) },
    dependencyChecks: [],
    listen: { host: '127.0.0.1', port: 0, maxConnectionAgeMs: 200 },
    logger,
  });
  const Client = makeGenericClientConstructor(definition as unknown as ServiceDefinition, 'ledger');
  const client = new Client(`127.0.0.1:${server.grpc.port}`, credentials.createInsecure(), { 'grpc.service_config': ROUND_ROBIN, ...RECONNECT_CHANNEL_OPTIONS });
  const channel = client.getChannel();
  const isConnected = followConnectivity(channel);
  expect(isConnected()).toBe(false);

  // Each time the channel leaves READY because the server ended its connection, what the follower says then.
  const whileReconnecting: boolean[] = [];
  onTransitions(channel, (from, to) => {
    if (from === connectivityState.READY && to !== connectivityState.SHUTDOWN) whileReconnecting.push(isConnected());
  });
  const readyAgainTwice = new Promise<void>((resolve) => {
    let readies = 0;
    onTransitions(channel, (_from, to) => {
      if (to === connectivityState.READY && (readies += 1) === 3) resolve();
    });
  });
  channel.getConnectivityState(true);
  await readyAgainTwice;
  expect(isConnected()).toBe(true);
  expect(whileReconnecting.length).toBeGreaterThanOrEqual(2);
  expect(whileReconnecting.every(Boolean)).toBe(true);

  const failed = until(channel, (_from, to) => to === connectivityState.TRANSIENT_FAILURE);
  await server.stop(1000);
  server = undefined;
  await failed;
  expect(isConnected()).toBe(false);
  client.close();
});
