import type { Logger } from '@gateway/lib/logging';

/** How a held stream is opened again after it ended or failed. */
export interface SubscriptionBackoff {
  /** The first wait before subscribing again; it doubles up to maxBackoffMs and starts over once a message arrives. */
  initialBackoffMs: number;
  maxBackoffMs: number;
}

export interface HeldStream<T> {
  /** Opens the stream; it must end when the signal aborts. */
  open(signal: AbortSignal): AsyncIterable<T>;
  onMessage(message: T): void;
  /**
   * The stream failed (with its error) or ended (undefined): what it kept
   * coherent may change unseen until it is open again.
   */
  onLost(error: unknown): void;
}

/**
 * Keeps a server stream open for as long as the process holds what it
 * publishes (the price list, the lease pushes): subscribes again after it
 * ends or fails, waiting a backoff that doubles, until stopped.
 */
export function holdStream<T>(stream: HeldStream<T>, logger: Logger, { initialBackoffMs, maxBackoffMs }: SubscriptionBackoff): { stop(): void } {
  const stopped = new AbortController();
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

  const subscribe = async () => {
    while (!stopped.signal.aborted) {
      let lost: unknown;
      try {
        for await (const message of stream.open(stopped.signal)) {
          stream.onMessage(message);
          backoffMs = initialBackoffMs;
        }
      } catch (error) {
        lost = error;
      }
      if (stopped.signal.aborted) return;
      try {
        stream.onLost(lost);
      } catch (error) {
        logger.warn({ err: error }, 'could not handle a lost stream');
      }
      await pause(backoffMs);
      backoffMs = Math.min(backoffMs * 2, maxBackoffMs);
    }
  };
  void subscribe();
  return { stop: () => stopped.abort() };
}
