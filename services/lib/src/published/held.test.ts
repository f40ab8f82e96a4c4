import { followStream } from './held';

/** A backend stream that sends one message, then stays open until the follower lets it go. */
function openStreams() {
  const opened: AbortSignal[] = [];
  let onOpen = () => undefined as void;
  return {
    opened,
    /** Resolves once `count` streams have been opened. */
    until: (count: number) =>
      new Promise<void>((resolve) => {
        onOpen = () => {
          if (opened.length >= count) resolve();
        };
        onOpen();
      }),
    subscribe: async function* (signal: AbortSignal) {
      opened.push(signal);
      onOpen();
      yield opened.length;
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    },
  };
}

describe('following a backend stream', () => {
  it('replaces a stream that has been open its maximum age with a new one, reporting no failure', async () => {
    const streams = openStreams();
    const messages: number[] = [];
    const failures: unknown[] = [];
    const following = followStream(
      { subscribe: streams.subscribe, onMessage: (message) => messages.push(message), onFailure: (error) => failures.push(error) },
      // A backoff this long would show as a stall: a replaced stream is opened again at once.
      { initialBackoffMs: 60_000, maxBackoffMs: 60_000, maxStreamAgeMs: 5 },
    );
    await streams.until(3);
    following.stop();
    expect(failures).toEqual([]);
    expect(messages.slice(0, 2)).toEqual([1, 2]);
    // Each stream was let go before the next was opened.
    expect(streams.opened.slice(0, 2).every((signal) => signal.aborted)).toBe(true);
  });

  it('lets its stream go when stopped, and opens no other', async () => {
    const streams = openStreams();
    const following = followStream({ subscribe: streams.subscribe, onMessage: () => undefined, onFailure: () => undefined }, { initialBackoffMs: 1, maxBackoffMs: 1, maxStreamAgeMs: 60_000 });
    await streams.until(1);
    following.stop();
    expect(streams.opened[0]?.aborted).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(streams.opened).toHaveLength(1);
  });
});
