/** One Record waiting to be written to Postgres. */
export interface QueuedRecord {
  /** Queue position (a Redis stream id). */
  id: string;
  /** The JSON payload (recording/payload.ts). */
  record: string;
  /** Purchased credits the settlement consumed for it. */
  creditsUsed: number;
}

/**
 * The durable buffer between Record and Postgres: a Redis stream with one
 * consumer group in the stack, memory in the embedded mode. A record stays
 * pending until acknowledged, and a consumer that dies leaves its pending
 * records for another to claim.
 */
export interface RecordQueue {
  append(record: string, creditsUsed: number): Promise<string>;
  /** Records never delivered to any consumer, waiting up to blockMs for the first. */
  read(consumer: string, count: number, blockMs: number): Promise<QueuedRecord[]>;
  /**
   * Records already delivered to this consumer and not yet acknowledged: what
   * a read or claim that failed on the way back (a timed-out command Redis had
   * carried out) left assigned to it.
   */
  pending(consumer: string, count: number): Promise<QueuedRecord[]>;
  /** Takes over records delivered at least minIdleMs ago and still unacknowledged. */
  claim(consumer: string, minIdleMs: number, count: number): Promise<QueuedRecord[]>;
  /** Done with these records (after the Postgres commit). */
  ack(ids: string[]): Promise<void>;
}
