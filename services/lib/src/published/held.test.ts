import { followStream, type Arrival } from './held';

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
  it('with an overlap, keeps the old stream until the new one has spoken, passing on both, and says the new one continued', async () => {
    // Each stream sends its number at once; the old one sends "late" once the new one has spoken.
    const opened: Array<{ signal: AbortSignal; late: () => void }> = [];
    const messages: Array<[string, Arrival]> = [];
    const failures: unknown[] = [];
    const following = followStream(
      {
        subscribe: async function* (signal) {
          const number = opened.length + 1;
          let late: () => void = () => undefined;
          const spoke = new Promise<void>((resolve) => (late = resolve));
          opened.push({ signal, late });
          yield `stream ${number}`;
          await Promise.race([spoke, new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }))]);
          if (!signal.aborted) {
            yield `late on stream ${number}`;
            // Then it fails, during the overlap: the follower has moved on, and reports nothing.
            throw new Error('gone');
          }
          await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        },
        onMessage: (message, arrival) => {
          messages.push([message, arrival]);
          // The second stream's first message: the first, still open, says one more thing.
          if (message === 'stream 2') opened[0]?.late();
        },
        onFailure: (error) => failures.push(error),
      },
      { initialBackoffMs: 60_000, maxBackoffMs: 60_000, maxStreamAgeMs: 30, overlapMs: 20 },
    );
    await until(() => messages.length >= 3 && opened.length >= 3);
    following.stop();
    expect(failures).toEqual([]);
    expect(messages.slice(0, 3)).toEqual([
      ['stream 1', { continued: false }],
      ['stream 2', { continued: true }],
      ['late on stream 1', { continued: false }],
    ]);
  });

  it('with an overlap, lets the old stream go at once when the new one ends before its first message', async () => {
    const opened: AbortSignal[] = [];
    const arrivals: Arrival[] = [];
    const following = followStream(
      {
        subscribe: async function* (signal) {
          opened.push(signal);
          if (opened.length === 2) throw new Error('refused');
          yield opened.length;
          await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        },
        onMessage: (_message, arrival) => arrivals.push(arrival),
        onFailure: () => undefined,
      },
      // The overlap would keep the first stream for a minute: it goes with the second's failure.
      { initialBackoffMs: 1, maxBackoffMs: 1, maxStreamAgeMs: 30, overlapMs: 60_000 },
    );
    await until(() => opened.length >= 3);
    following.stop();
    expect(opened[0]?.aborted).toBe(true);
    // The third stream was opened after a failure, with nothing open before it: it did not continue.
    expect(arrivals.slice(0, 2)).toEqual([{ continued: false }, { continued: false }]);
  });
});

/** Resolves once the condition holds, looking again on each turn of the event loop. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 1));
}
