import type { Logger } from '../logging';

/** The latest version a backend published, held by a caller to answer locally. */
export interface Held<T> {
  /** Undefined until the first version arrives: the caller then asks the backend. */
  current(): T | undefined;
  stop(): void;
}

export interface Resubscribe {
  /** The first wait before subscribing again after the stream ended or failed; it doubles up to maxBackoffMs. */
  initialBackoffMs: number;
  maxBackoffMs: number;
  /** How long one stream is followed before it is replaced by a new one (at once, no backoff); default DEFAULT_STREAM_AGE_MS. */
  maxStreamAgeMs?: number;
  /**
   * 0 (the default): a stream replaced for its age is let go before the new one is opened.
   * Otherwise the old one is kept, its messages passed on, until this long after the new
   * one's first message, so that nothing sent in between is missed.
   */
  overlapMs?: number;
}

/**
 * A server ends each connection after a while (lib's grpc server.ts), so
 * that clients reach the pods a scale-up adds; the calls on it finish on it,
 * but the client no longer pings a connection it has stopped using, so a
 * peer that vanished without closing it would leave a stream on it hanging.
 * Replacing the stream this often bounds that; the new one takes a live
 * connection. It also moves long-lived streams onto new pods.
 */
const DEFAULT_STREAM_AGE_MS = 60_000;

export const DEFAULT_RESUBSCRIBE: Resubscribe = { initialBackoffMs: 100, maxBackoffMs: 5000, maxStreamAgeMs: DEFAULT_STREAM_AGE_MS };

export interface Subscription<M, T> {
  /** Names the value in logs (`price_list`, `routing_policy`). */
  kind: string;
  /** Opens the backend's stream (its `Watch…` RPC), cancelled with the signal. */
  subscribe(signal: AbortSignal): AsyncIterable<M>;
  /** Decodes and checks one message; a message it throws on is refused and the stream opened again. */
  accept(message: M): T;
  versionOf(value: T): string;
}

/** How a message came. */
export interface Arrival {
  /**
   * The first message of a stream that replaced one for its age while that one was still open
   * (with `overlapMs`): the follower was never without a stream, so a backend's "you may have
   * missed something" greeting says nothing here.
   */
  continued: boolean;
}

/** What follows a backend's long-lived stream. */
export interface StreamFollower<M> {
  /** Opens the stream, cancelled with the signal. */
  subscribe(signal: AbortSignal): AsyncIterable<M>;
  /** One message; if it throws, the stream is given up and opened again, as if it had failed. */
  onMessage(message: M, arrival: Arrival): void;
  /** The stream failed (it is opened again after the backoff). */
  onFailure(error: unknown): void;
}

/** One stream being followed. */
interface Followed {
  /** Neither ended nor failed yet. */
  open: boolean;
  letGo(): void;
}

/**
 * How following one stream ended, for the loop: `aged` when it was replaced
 * for its age (the loop opens the next at once; with an overlap it is still
 * open), `ended` when it ended, failed or was let go.
 */
type Outcome = { how: 'aged'; followed: Followed } | { how: 'ended' };

/**
 * Keeps a backend's stream open until stopped: opened again after it ends
 * or fails, with a backoff that doubles from initialBackoffMs and starts over
 * once a message arrives, and replaced by a new one at once when it has been
 * open maxStreamAgeMs (the two overlapping for `overlapMs`, when set).
 */
export function followStream<M>(
  { subscribe, onMessage, onFailure }: StreamFollower<M>,
  { initialBackoffMs, maxBackoffMs, maxStreamAgeMs = DEFAULT_STREAM_AGE_MS, overlapMs = 0 }: Resubscribe = DEFAULT_RESUBSCRIBE,
): { stop(): void } {
  const stopped = new AbortController();
  /** A stream replaced for its age stays followed until its successor's first message (else it is let go at once). */
  const overlapping = overlapMs > 0;
  let backoffMs = initialBackoffMs;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        stopped.signal.removeEventListener('abort', done);
        resolve();
      }
      stopped.signal.addEventListener('abort', done, { once: true });
    });

  /** Follows one stream; `predecessor`, one replaced for its age and still open, is let go after this one's first message. */
  const follow = (predecessor: Followed | undefined) =>
    new Promise<Outcome>((settle) => {
      const stream = new AbortController();
      const followed: Followed = { open: true, letGo: () => stream.abort() };
      stopped.signal.addEventListener('abort', followed.letGo, { once: true });
      let aged = false;
      const replaceWhenOld = setTimeout(() => {
        aged = true;
        if (overlapping) settle({ how: 'aged', followed });
        else followed.letGo();
      }, maxStreamAgeMs);
      let waiting = predecessor;
      const lastOfPredecessor = (afterMs: number) => {
        const old = waiting;
        waiting = undefined;
        if (old) setTimeout(old.letGo, afterMs).unref?.();
      };
      void (async () => {
        try {
          for await (const message of subscribe(stream.signal)) {
            const continued = waiting?.open === true;
            lastOfPredecessor(overlapMs);
            onMessage(message, { continued });
            backoffMs = initialBackoffMs;
          }
        } catch (error) {
          // One replaced with an overlap that fails meanwhile is not followed any more: nothing to report.
          if (!stream.signal.aborted && !(aged && overlapping)) onFailure(error);
        } finally {
          followed.open = false;
          // No first message: what it replaced is let go now, as without an overlap.
          lastOfPredecessor(0);
          clearTimeout(replaceWhenOld);
          stopped.signal.removeEventListener('abort', followed.letGo);
          settle(aged && !overlapping ? { how: 'aged', followed } : { how: 'ended' });
        }
      })();
    });

  const run = async () => {
    let predecessor: Followed | undefined;
    while (!stopped.signal.aborted) {
      const outcome = await follow(predecessor);
      predecessor = outcome.how === 'aged' && outcome.followed.open ? outcome.followed : undefined;
      if (stopped.signal.aborted) return;
      if (outcome.how === 'aged') continue;
      await pause(backoffMs);
      backoffMs = Math.min(backoffMs * 2, maxBackoffMs);
    }
  };
  void run();
  return { stop: () => stopped.abort() };
}

/**
 * Subscribes to a backend's stream of versions and keeps the latest. The
 * value held stays in use while the backend is away (it does not change
 * while nobody publishes it); the stream is opened again with a backoff that
 * doubles from initialBackoffMs and starts over once a version arrives.
 */
export function holdLatest<M, T>({ kind, subscribe, accept, versionOf }: Subscription<M, T>, logger: Logger, resubscribe: Resubscribe = DEFAULT_RESUBSCRIBE): Held<T> {
  const label = kind.replace(/_/g, ' ');
  let held: T | undefined;
  const heldVersion = () => (held === undefined ? undefined : versionOf(held));
  const following = followStream(
    {
      subscribe,
      onMessage: (message) => {
        const value = accept(message);
        const version = versionOf(value);
        if (version !== heldVersion()) logger.info({ [kind]: version, previous: heldVersion() }, `${label} received`);
        held = value;
      },
      onFailure: (error) => logger.warn({ err: error, holding: heldVersion() ?? null }, `${label} stream failed: subscribing again`),
    },
    resubscribe,
  );
  return { current: () => held, stop: () => following.stop() };
}
