import type { QueuedRecord, RecordQueue } from './queue';

interface Entry {
  record: string;
  creditsUsed: number;
  /** Set once delivered to a consumer; pending until acknowledged. */
  deliveredAt?: number;
  consumer?: string;
}

/**
 * The record queue of the embedded single-process mode. It lives and dies
 * with the process, like everything else there; it keeps the same delivery
 * rules as the Redis stream so the same writer drains it.
 */
export class MemoryRecordQueue implements RecordQueue {
  private readonly entries = new Map<string, Entry>();
  private readonly undelivered: string[] = [];
  private readonly waiters = new Set<() => void>();
  private sequence = 0;

  /** Synchronous append, so a settlement and its record happen in one turn of the event loop. */
  push(record: string, creditsUsed: number): string {
    const id = String(++this.sequence);
    this.entries.set(id, { record, creditsUsed });
    this.undelivered.push(id);
    for (const wake of this.waiters) wake();
    return id;
  }

  append(record: string, creditsUsed: number): Promise<string> {
    return Promise.resolve(this.push(record, creditsUsed));
  }

  async read(consumer: string, count: number, blockMs: number): Promise<QueuedRecord[]> {
    if (this.undelivered.length === 0 && blockMs > 0) await this.nextAppend(blockMs);
    return this.undelivered.splice(0, count).flatMap((id) => this.deliver(id, consumer, Date.now()));
  }

  pending(consumer: string, count: number): Promise<QueuedRecord[]> {
    const own = [...this.entries].filter(([, entry]) => entry.consumer === consumer).slice(0, count);
    return Promise.resolve(own.map(([id, entry]) => ({ id, record: entry.record, creditsUsed: entry.creditsUsed })));
  }

  claim(consumer: string, minIdleMs: number, count: number): Promise<QueuedRecord[]> {
    const now = Date.now();
    const claimable = [...this.entries]
      .filter(([, entry]) => entry.deliveredAt !== undefined && now - entry.deliveredAt >= minIdleMs)
      .slice(0, count);
    return Promise.resolve(claimable.flatMap(([id]) => this.deliver(id, consumer, now)));
  }

  ack(ids: string[]): Promise<void> {
    for (const id of ids) this.entries.delete(id);
    return Promise.resolve();
  }

  private deliver(id: string, consumer: string, now: number): QueuedRecord[] {
    const entry = this.entries.get(id);
    if (!entry) return [];
    entry.deliveredAt = now;
    entry.consumer = consumer;
    return [{ id, record: entry.record, creditsUsed: entry.creditsUsed }];
  }

  private nextAppend(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, timeoutMs);
      this.waiters.add(wake);
    });
  }
}
