import { z } from 'zod';

/** The name the trace receiver's process is read under, beside the upstream's and the load generator's. */
export const TRACE_RECEIVER = 'trace receiver';

const statsSchema = z.object({ exports: z.number().int().nonnegative(), bytes: z.number().int().nonnegative() });

/** What the receiver (otlp-receiver.ts) was sent so far, in words. */
export async function receivedTraces(port: number): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${port}/stats`);
  const { exports, bytes } = statsSchema.parse(await response.json());
  return `${exports} exports, ${(bytes / 1e6).toFixed(1)} MB`;
}
