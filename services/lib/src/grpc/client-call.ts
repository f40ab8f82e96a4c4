import type { ServiceError } from '@grpc/grpc-js';
import type { DomainError } from '../errors';
import type { OutageReporter } from '../outages';
import type { CallTimer } from './call-metrics';
import type { CarriedMetadata } from './carried-metadata';
import { endCallSpan, type CallSpans } from './call-spans';
import { fromGrpcError, isUnreachable } from './status';

/** What a client keeps of each call of one method: its spans, its histogram, where outages are reported, and the name errors give. */
export interface ClientMethod {
  serviceName: string;
  spans: CallSpans;
  timer: CallTimer;
  outages: OutageReporter | undefined;
}

/**
 * Starts one call of `method` (its client span, whose context goes out in
 * `metadata`) and gives what finishes it, whether it went as a unary call or
 * over a call stream: the span ended with the status, the duration recorded,
 * an unreachable service reported, and the caller answered with the response
 * or the mapped DomainError.
 */
export function startClientCall(
  { serviceName, spans, timer, outages }: ClientMethod,
  metadata: CarriedMetadata,
  resolve: (response: unknown) => void,
  reject: (error: DomainError) => void,
): (error: ServiceError | null, response?: unknown) => void {
  const started = performance.now();
  const span = spans.startClient(metadata);
  return (error, response) => {
    if (error) {
      endCallSpan(span, error.code);
      const domain = fromGrpcError(error, serviceName);
      timer.failed(started, domain);
      if (isUnreachable(error)) outages?.failed(domain);
      reject(domain);
    } else {
      endCallSpan(span, 0);
      timer.succeeded(started);
      outages?.succeeded();
      resolve(response);
    }
  };
}
