import type { Redis } from '@gateway/lib/redis';
import { requireConnected } from '../redis/availability';
import type { LedgerKeys } from '../redis/keys';
import type { QueuedRecord, RecordQueue } from './queue';

/** A stream entry as Redis replies: [id, [field, value, ...]]. */
type RawEntry = [string, string[]];

function isRawEntry(value: unknown): value is RawEntry {
  return Array.isArray(value) && typeof value[0] === 'string' && Array.isArray(value[1]);
}

function toQueued([id, fields]: RawEntry): QueuedRecord {
  const field = (name: string) => {
    const index = fields.indexOf(name);
    return index >= 0 && index % 2 === 0 ? fields[index + 1] : undefined;
  };
  return { id, record: field('record') ?? '', creditsUsed: Number(field('credits_used') ?? 0) };
}

function isMissingGroup(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOGROUP');
}

/**
 * The record stream with one consumer group. Nothing trims it by length: an
 * entry leaves the stream only when acknowledged (XACK then XDEL), that is,
 * after its Postgres commit. Blocking reads hold their connection, so the
 * writer's queue gets a connection of its own.
 */
export class RedisRecordQueue implements RecordQueue {
  private groupReady = false;

  constructor(
    private readonly redis: Redis,
    private readonly keys: LedgerKeys,
  ) {}

  async append(record: string, creditsUsed: number): Promise<string> {
    requireConnected(this.redis);
    const id = await this.redis.xadd(this.keys.stream, '*', 'record', record, 'credits_used', String(creditsUsed));
    if (id === null) throw new Error('XADD returned no id');
    return id;
  }

  read(consumer: string, count: number, blockMs: number): Promise<QueuedRecord[]> {
    // BLOCK 0 would wait forever; no wait at all is no BLOCK.
    return this.readGroup(consumer, count, blockMs > 0 ? ['BLOCK', blockMs] : [], '>');
  }

  pending(consumer: string, count: number): Promise<QueuedRecord[]> {
    // From "0", XREADGROUP reads the consumer's own pending entries instead of new ones.
    return this.readGroup(consumer, count, [], '0');
  }

  private readGroup(consumer: string, count: number, wait: Array<string | number>, from: '>' | '0'): Promise<QueuedRecord[]> {
    return this.withGroup(async () => {
      const reply: unknown = await this.redis.call(
        'XREADGROUP',
        'GROUP',
        this.keys.group,
        consumer,
        'COUNT',
        count,
        ...wait,
        'STREAMS',
        this.keys.stream,
        from,
      );
      if (!Array.isArray(reply)) return [];
      return reply.flatMap((stream: unknown) =>
        Array.isArray(stream) && Array.isArray(stream[1]) ? (stream[1] as unknown[]).filter(isRawEntry).map(toQueued) : [],
      );
    });
  }

  claim(consumer: string, minIdleMs: number, count: number): Promise<QueuedRecord[]> {
    return this.withGroup(async () => {
      const claimed: QueuedRecord[] = [];
      let cursor = '0-0';
      do {
        const reply: unknown = await this.redis.call(
          'XAUTOCLAIM',
          this.keys.stream,
          this.keys.group,
          consumer,
          minIdleMs,
          cursor,
          'COUNT',
          count - claimed.length,
        );
        if (!Array.isArray(reply) || typeof reply[0] !== 'string') throw new Error(`unexpected XAUTOCLAIM reply: ${JSON.stringify(reply)}`);
        cursor = reply[0];
        const entries: unknown[] = Array.isArray(reply[1]) ? reply[1] : [];
        claimed.push(...entries.filter(isRawEntry).map(toQueued));
        // Entries deleted while pending can never be written: drop them from the group.
        const deleted: unknown[] = Array.isArray(reply[2]) ? reply[2] : [];
        const deletedIds = deleted.filter((id): id is string => typeof id === 'string');
        if (deletedIds.length > 0) await this.redis.xack(this.keys.stream, this.keys.group, ...deletedIds);
      } while (cursor !== '0-0' && claimed.length < count);
      return claimed;
    });
  }

  async ack(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    requireConnected(this.redis);
    const results = await this.redis
      .multi()
      .xack(this.keys.stream, this.keys.group, ...ids)
      .xdel(this.keys.stream, ...ids)
      .exec();
    const failed = results?.find(([error]) => error !== null);
    if (!results || failed) throw failed?.[0] ?? new Error('acknowledgement transaction aborted');
  }

  /** Creates the group (and the stream) on first use, and again if Redis lost them. */
  private async withGroup<T>(operation: () => Promise<T>): Promise<T> {
    requireConnected(this.redis);
    if (!this.groupReady) await this.createGroup();
    try {
      return await operation();
    } catch (error) {
      if (isMissingGroup(error)) this.groupReady = false;
      throw error;
    }
  }

  private async createGroup(): Promise<void> {
    try {
      // From the stream's start: records appended before the group existed are drained too.
      await this.redis.xgroup('CREATE', this.keys.stream, this.keys.group, '0', 'MKSTREAM');
    } catch (error) {
      if (!(error instanceof Error && error.message.startsWith('BUSYGROUP'))) throw error;
    }
    this.groupReady = true;
  }
}
