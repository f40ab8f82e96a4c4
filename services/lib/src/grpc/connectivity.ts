import { connectivityState, type Client } from '@grpc/grpc-js';

type Channel = Pick<ReturnType<Client['getChannel']>, 'getConnectivityState' | 'watchConnectivityState'>;

/**
 * How long a channel that was READY may be connecting again and still count
 * as connected. Servers end every connection after its age with a GOAWAY
 * (server.ts) and the client connects again at once, which takes a few
 * milliseconds; calls made meanwhile wait for the new connection and succeed.
 * Reading the channel's state alone called the service down for that moment,
 * once a minute. A connection attempt that fails ends the grace at once.
 */
export const RECONNECT_GRACE_MS = 1000;

/** Calls `onChange(from, to)` on every change of the channel's state, until it shuts down. */
export function onTransitions(channel: Channel, onChange: (from: connectivityState, to: connectivityState) => void): void {
  let state = channel.getConnectivityState(false);
  const watch = () =>
    channel.watchConnectivityState(state, Number.POSITIVE_INFINITY, () => {
      const next = channel.getConnectivityState(false);
      onChange(state, next);
      state = next;
      if (next !== connectivityState.SHUTDOWN) watch();
    });
  watch();
}

/**
 * Follows the channel's state from now on and answers whether calls can be
 * expected to reach the service: READY, or connecting again within
 * RECONNECT_GRACE_MS of leaving READY with no attempt failed since.
 */
export function followConnectivity(channel: Channel, clock: () => number = Date.now): () => boolean {
  let connectedUntil = channel.getConnectivityState(false) === connectivityState.READY ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
  onTransitions(channel, (from, to) => {
    if (to === connectivityState.READY) connectedUntil = Number.POSITIVE_INFINITY;
    else if (to === connectivityState.TRANSIENT_FAILURE || to === connectivityState.SHUTDOWN) connectedUntil = Number.NEGATIVE_INFINITY;
    else if (from === connectivityState.READY) connectedUntil = clock() + RECONNECT_GRACE_MS;
  });
  return () => clock() < connectedUntil;
}
