import { EVERY_ORGANIZATION } from '@gateway/lib/allowance-changes';

/**
 * Organizations whose allowance changed (credits granted, own spend allowance
 * set or removed), as every ledger process hears of them: through Redis
 * pub/sub in the stack, since the change may be made by another process (the
 * admin command), and in-process in the embedded mode. WatchLeases passes
 * them on, so holders give back and ask anew at once.
 */
export interface AllowanceChanges {
  /** Calls the listener with each organization id announced from now on, until the returned function is called. */
  subscribe(listener: (organizationId: string) => void): () => void;
}

/** The embedded mode's announcements: the memory store announces, the same process listens. */
export class MemoryAllowanceChanges implements AllowanceChanges {
  private readonly listeners = new Set<(organizationId: string) => void>();

  announce(organizationId: string): void {
    for (const listener of this.listeners) listener(organizationId);
  }

  subscribe(listener: (organizationId: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/**
 * The announcements as a stream that ends when the signal aborts, starting
 * with EVERY_ORGANIZATION: a holder whose stream was down (or is new) may
 * have missed some. An organization announced again before it was read is
 * sent once: the holder only needs to know that it must ask anew.
 */
export async function* allowanceChangesUntil(changes: AllowanceChanges, signal: AbortSignal): AsyncIterable<string> {
  const pending = new Set<string>([EVERY_ORGANIZATION]);
  let wake: (() => void) | undefined;
  const unsubscribe = changes.subscribe((organizationId) => {
    pending.add(organizationId);
    wake?.();
  });
  const onAbort = () => wake?.();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    while (!signal.aborted) {
      const [next] = pending;
      if (next === undefined) {
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
        continue;
      }
      pending.delete(next);
      yield next;
    }
  } finally {
    unsubscribe();
    signal.removeEventListener('abort', onAbort);
  }
}
