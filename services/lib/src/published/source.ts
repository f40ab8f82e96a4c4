/**
 * What a backend publishes (pricing's price list, the router's routing
 * policy) and everyone watching it. A new value with another version is
 * published to every watcher; one with the same version changes nothing.
 */
export interface Published<T> {
  current(): T;
  /** Takes a new value; true when it published a new version. */
  replace(next: T): boolean;
  /** The value in force, then every later version, until the signal aborts. */
  watch(signal: AbortSignal): AsyncIterable<T>;
}

export function published<T>(initial: T, versionOf: (value: T) => string): Published<T> {
  let value = initial;
  const waiting = new Set<() => void>();
  return {
    current: () => value,
    replace(next) {
      if (versionOf(next) === versionOf(value)) return false;
      value = next;
      for (const wake of waiting) wake();
      waiting.clear();
      return true;
    },
    async *watch(signal) {
      let sent: string | undefined;
      while (!signal.aborted) {
        const version = versionOf(value);
        if (version !== sent) {
          sent = version;
          yield value;
          continue;
        }
        await new Promise<void>((resolve) => {
          const wake = () => {
            signal.removeEventListener('abort', wake);
            waiting.delete(wake);
            resolve();
          };
          waiting.add(wake);
          signal.addEventListener('abort', wake, { once: true });
        });
      }
    },
  };
}
