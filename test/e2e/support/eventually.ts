/**
 * Polls until `probe` returns a value (not undefined), for effects that land
 * asynchronously: the ledger writer's commit, spans leaving a batch exporter.
 * Fails with the last value seen, never on a timing alone.
 */
export async function eventually<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 15_000, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
