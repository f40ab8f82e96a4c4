/**
 * A client-side load balancer over edge replicas that follows their
 * readiness, as an endpoints controller does for a Service: each replica's
 * /readyz is polled every few milliseconds, and requests go round robin to
 * the replicas whose last answer was 200. A replica that reports not ready (it
 * is draining) gets no new request from then on.
 */
export interface Balancer {
  /** The next ready replica's base URL, round robin; throws if none is ready. */
  next(): string;
  ready(): string[];
  close(): Promise<void>;
}

const PROBE_TIMEOUT_MS = 2_000;
const PROBE_INTERVAL_MS = 25;

export function startBalancer(baseUrls: readonly string[]): Balancer {
  const ready = new Set<string>();
  let closed = false;
  let turn = 0;

  const probe = async (baseUrl: string) => {
    while (!closed) {
      try {
        const response = await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
        await response.arrayBuffer();
        if (response.status === 200) ready.add(baseUrl);
        else ready.delete(baseUrl);
      } catch {
        // Refused or timed out: not ready.
        ready.delete(baseUrl);
      }
      await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS));
    }
  };
  const probes = baseUrls.map(probe);

  return {
    next: () => {
      const candidates = baseUrls.filter((url) => ready.has(url));
      const chosen = candidates[turn++ % Math.max(candidates.length, 1)];
      if (chosen === undefined) throw new Error(`no edge replica is ready (${baseUrls.join(', ')})`);
      return chosen;
    },
    ready: () => baseUrls.filter((url) => ready.has(url)),
    close: async () => {
      closed = true;
      await Promise.all(probes);
    },
  };
}
