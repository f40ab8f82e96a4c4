import type { Kysely } from 'kysely';
import type { Logger } from '@gateway/lib/logging';
import { gatewayMeter } from '@gateway/lib/metrics';
import type { LedgerDatabase } from '../db/schema';
import { databaseFailure } from '../db/errors';
import { DEAD_LETTERS_MIGRATION } from '../db/migrations';
import { outageLog } from '../outage-log';
import type { QueuedRecord, RecordQueue } from '../queue/queue';
import { recordPayloadSchema } from '../recording/payload';
import { refusalOf, setAside } from './dead-letters';
import { writeIsolatingRefused } from './isolate-refused';
import { writeRecords, type WritableRecord } from './write-batch';

export interface WriterSettings {
  /** Unique per process: what a dead process leaves pending is claimed by name-independent idle time. */
  consumer: string;
  batchSize: number;
  /** How long one read waits for new records. */
  blockMs: number;
  /**
   * After a batch that did not fill, how long to let the next one gather
   * before reading again: at a steady rate, one transaction per interval
   * instead of one per record. Records wait in the stream, already durable
   * and already counted; only their arrival in Postgres (usage reports) is later.
   */
  lingerMs: number;
  /** Records pending this long are taken over from their (presumed dead) consumer; also the claim interval. */
  claimIdleMs: number;
}

export interface WriterDeps {
  db: Kysely<LedgerDatabase>;
  queue: RecordQueue;
  logger: Logger;
}

export interface RecordWriter {
  /** Finishes the batch in flight, then stops; what is left stays queued for the next writer. */
  stop(): Promise<void>;
}

const MAX_RETRY_DELAY_MS = 5000;

function parseQueued(entry: QueuedRecord): WritableRecord | undefined {
  try {
    const parsed = recordPayloadSchema.safeParse(JSON.parse(entry.record));
    return parsed.success ? { payload: parsed.data, creditsUsed: entry.creditsUsed } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Drains the record queue into Postgres: reads a batch, writes it in one
 * transaction, acknowledges it after the commit. On start and every
 * claimIdleMs it first takes over records a dead writer left pending, so a
 * process killed mid-batch loses nothing; the request-id conflict rule makes
 * the redelivery write nothing twice.
 */
export function startRecordWriter({ db, queue, logger }: WriterDeps, settings: WriterSettings): RecordWriter {
  const outage = outageLog(logger, 'record writer');
  const written = gatewayMeter().createCounter('ledger.writer.records', {
    description: 'Queued records the writer committed to Postgres (written), set aside because Postgres refused them (dead_lettered), or dropped as malformed.',
  });
  const failedBatches = gatewayMeter().createCounter('ledger.writer.failed_batches', {
    description: 'Batches whose write failed; their records stay queued and are written on a later try.',
  });
  let stopping = false;
  let nextClaimAt = 0;
  let wakeFromPause: (() => void) | undefined;

  /** A retry delay that stop() cuts short. */
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        wakeFromPause = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      wakeFromPause = done;
    });

  // A read or claim that failed may still have been carried out by Redis (a
  // command timed out on its way back): its records are then pending on this
  // consumer, where only the claim would find them, claimIdleMs later. So
  // after a failure the writer first takes back what is pending on its own name.
  let recoverOwnPending = false;

  const nextBatch = async (): Promise<QueuedRecord[]> => {
    if (recoverOwnPending) {
      const own = await queue.pending(settings.consumer, settings.batchSize);
      if (own.length > 0) return own;
      recoverOwnPending = false;
    }
    if (Date.now() >= nextClaimAt) {
      const claimed = await queue.claim(settings.consumer, settings.claimIdleMs, settings.batchSize);
      // A full batch may mean more is pending: claim again straight away.
      nextClaimAt = claimed.length === settings.batchSize ? 0 : Date.now() + settings.claimIdleMs;
      if (claimed.length > 0) {
        logger.info({ count: claimed.length }, 'claimed pending records');
        return claimed;
      }
    }
    return queue.read(settings.consumer, settings.batchSize, settings.blockMs);
  };

  /** Records Postgres refuses go to `dead_letters`, each logged once with its request id: they hold back no other record. */
  const writeBatch = async (batch: QueuedRecord[]) => {
    const records: Array<{ entry: QueuedRecord; record: WritableRecord }> = [];
    for (const entry of batch) {
      const record = parseQueued(entry);
      // Record validated it before queueing; a malformed entry can never be written, so it is logged whole and dropped.
      if (record) records.push({ entry, record });
      else logger.error({ entry_id: entry.id, record: entry.record }, 'malformed queued record dropped');
    }
    const now = new Date();
    const refusals = await writeIsolatingRefused(records, (items) => writeRecords(db, items.map(({ record }) => record), now)).catch(
      (error: unknown) => {
        throw databaseFailure(error);
      },
    );
    const refused = refusals.map(({ item, error }) => refusalOf(item.record.payload.request_id, item.entry, error));
    const setAsideNow = await setAside(db, refused).catch((error: unknown) => {
      throw databaseFailure(error, DEAD_LETTERS_MIGRATION);
    });
    await queue.ack(batch.map(({ id }) => id));
    for (const { requestId, entry, code, reason } of refused) {
      if (!setAsideNow.has(requestId)) continue;
      logger.error({ request_id: requestId, entry_id: entry.id, error_code: code, reason }, 'record refused by postgres: set aside in dead_letters');
    }
    written.add(records.length - refused.length, { outcome: 'written' });
    if (refused.length > 0) written.add(refused.length, { outcome: 'dead_lettered' });
    if (records.length < batch.length) written.add(batch.length - records.length, { outcome: 'dropped_malformed' });
    logger.debug({ count: records.length - refused.length }, 'records written');
  };

  const loop = (async () => {
    let failures = 0;
    // A batch whose write failed (Postgres unreachable, a connection ended
    // mid-transaction) is retried by this writer, after a backoff, before it
    // reads anything new: left to the claim, it would wait claimIdleMs. A
    // partly written batch is safe to write again (request ids are skipped).
    let unwritten: QueuedRecord[] = [];
    while (!stopping) {
      try {
        const batch = unwritten.length > 0 ? unwritten : await nextBatch();
        unwritten = batch;
        if (batch.length > 0) await writeBatch(batch);
        unwritten = [];
        failures = 0;
        outage.succeeded();
        if (batch.length > 0 && batch.length < settings.batchSize && settings.lingerMs > 0 && !stopping) await pause(settings.lingerMs);
      } catch (error) {
        // The batch stays pending in the stream too: if this process dies, another claims it once idle.
        if (unwritten.length === 0) recoverOwnPending = true;
        failures += 1;
        failedBatches.add(1);
        outage.failed(error);
        if (!stopping) await pause(Math.min(MAX_RETRY_DELAY_MS, 100 * 2 ** failures));
      }
    }
  })();

  return {
    stop: async () => {
      stopping = true;
      wakeFromPause?.();
      await loop;
    },
  };
}
