import type { Attributes } from '@opentelemetry/api';
import { errorMapping, type DomainError } from '../errors';
import { durationHistogram } from '../metrics';
import { rpcAttributes } from './call-spans';

/**
 * Duration of every unary call, on the server (`rpc.server.duration`) and on
 * the client (`rpc.client.duration`), by method and outcome: the OpenTelemetry
 * RPC attributes, plus the domain error kind and, where the error has one,
 * its reason code (why auth refused a credential, say). A method's
 * successful calls record into its series, found once, not per call.
 */
export interface CallTimer {
  /** Records one call that started at `startedMs` (performance.now()). */
  succeeded(startedMs: number): void;
  failed(startedMs: number, error: DomainError): void;
}

export function callTimer(side: 'server' | 'client', methodPath: string): CallTimer {
  const histogram = durationHistogram(`rpc.${side}.duration`, `Time to ${side === 'server' ? 'answer' : 'complete'} one gRPC call, by method and outcome.`);
  const method: Attributes = rpcAttributes(methodPath);
  const ok = histogram.series({ ...method, 'rpc.grpc.status_code': 0 });
  return {
    succeeded: (startedMs) => ok.record(performance.now() - startedMs),
    failed: (startedMs, error) =>
      histogram.record(performance.now() - startedMs, {
        ...method,
        'rpc.grpc.status_code': errorMapping[error.kind].grpc,
        'error.type': error.kind,
        ...(error.reasonCode === undefined ? {} : { reason: error.reasonCode }),
      }),
  };
}
