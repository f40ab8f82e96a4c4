import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { LedgerServiceService } from '@gateway/proto/gen/gateway/ledger/v1/ledger';
import { grpcServiceName, serveService, type DependencyCheck, type RunningGrpcServer, type ServiceHandlers } from '@gateway/lib/grpc';
import type { LedgerDeps, LedgerSettings } from './deps';
import { ledgerHandlers } from './rpc/handlers';
import { startRecordWriter, type RecordWriter } from './writer/writer';

export { startRecordWriter, type RecordWriter, type WriterSettings } from './writer/writer';
export type { LedgerDeps, LedgerSettings } from './deps';

export const LEDGER_HEALTH_NAME = grpcServiceName(LedgerServiceService);

/** A name no other writer process has, for the consumer group. */
export function writerConsumerName(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

export function defaultLedgerSettings(): LedgerSettings {
  return {
    reservationTtlSeconds: 600,
    lease: { ttlMs: 10_000, shareDivisor: 4, reclaimWaitMs: 200 },
    writer: { consumer: writerConsumerName(), batchSize: 500, blockMs: 100, lingerMs: 200, claimIdleMs: 30_000 },
  };
}

export interface LedgerServer {
  grpc: RunningGrpcServer;
  /** The handlers behind the port, for callers in the same process. */
  handlers: ServiceHandlers<typeof LedgerServiceService>;
  writer: RecordWriter;
  /** Stops taking calls, lets those in flight finish (for up to graceMs), then lets the writer finish its batch. */
  stop(graceMs?: number): Promise<void>;
}

/** Wires the RPC handlers, the health service and the record writer. */
export async function startLedgerServer(
  deps: LedgerDeps,
  listen: { host: string; port: number },
  dependencyChecks: DependencyCheck[],
): Promise<LedgerServer> {
  const defaults = defaultLedgerSettings();
  const settings: LedgerSettings = {
    reservationTtlSeconds: deps.settings?.reservationTtlSeconds ?? defaults.reservationTtlSeconds,
    lease: { ...defaults.lease, ...deps.settings?.lease },
    writer: { ...defaults.writer, ...deps.settings?.writer },
  };
  const server = await serveService({
    definition: LedgerServiceService,
    handlers: ledgerHandlers(deps, settings),
    dependencyChecks,
    listen,
    logger: deps.logger,
  });
  const writer = startRecordWriter(deps, settings.writer);
  return {
    grpc: server.grpc,
    handlers: server.handlers,
    writer,
    stop: async (graceMs) => {
      await server.stop(graceMs);
      await writer.stop();
    },
  };
}
