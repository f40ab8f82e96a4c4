import type { IncomingMessage } from 'node:http';
import type { Principal } from '@gateway/proto/gen/gateway/auth/v1/auth';
import type { RecordRequest } from '@gateway/proto/gen/gateway/ledger/v1/ledger';
import type { RouteFacts } from './headers';
import { principalName, subjectOf } from './principal';

/** docs/api.md#gateway: the client label is at most 200 characters. */
export const CLIENT_LABEL_LIMIT = 200;
const USER_AGENT_LIMIT = 512;
const CLIENT_HEADER = 'x-service-client';

/** `X-Service-Client` truncated to 200 characters, else the user agent. It authorizes nothing. */
export function clientLabelOf(req: IncomingMessage): { clientLabel: string; userAgent: string } {
  const userAgent = (req.headers['user-agent'] ?? '').slice(0, USER_AGENT_LIMIT);
  const client = req.headers[CLIENT_HEADER];
  const label = typeof client === 'string' && client.trim() !== '' ? client : userAgent;
  return { clientLabel: [...label].slice(0, CLIENT_LABEL_LIMIT).join(''), userAgent };
}

export interface CallSummary {
  requestId: string;
  principal: Principal;
  reservationId: string;
  /** The lease the call was admitted against, in place of a reservation; empty otherwise. */
  leaseId: string;
  requestedModel: string;
  route: RouteFacts | undefined;
  httpStatus: number;
  errorClass: string;
  startedAt: Date;
  latencyMs: number;
  inputTokens: number;
  outputTokens: number;
  priced: boolean;
  costMicros: bigint;
  /** The price list the call was priced with; empty when it was not priced. */
  priceListVersion: string;
  stream: boolean;
  /** The call reached the provider and counts against the allowance. */
  consumed: boolean;
}

/** What a Record says of the call; how long the ledger may take to commit it is recordCall's to add. */
export type TraceRecord = Omit<RecordRequest, 'commitWithinMs'>;

/** One trace and ledger record per request (docs/api.md#gateway). */
export function traceRecord(req: IncomingMessage, call: CallSummary): TraceRecord {
  return {
    subject: subjectOf(call.principal),
    requestId: call.requestId,
    reservationId: call.reservationId,
    leaseId: call.leaseId,
    apiKeyId: call.principal.apiKeyId,
    principal: principalName(call.principal),
    ...clientLabelOf(req),
    requestedModel: call.requestedModel,
    servedModel: call.route?.model ?? '',
    tier: call.route?.tier ?? '',
    complexity: call.route?.complexity ?? 0,
    httpStatus: call.httpStatus,
    errorClass: call.errorClass,
    latencyMs: call.latencyMs,
    inputTokens: String(call.inputTokens),
    outputTokens: String(call.outputTokens),
    priced: call.priced,
    costMicros: call.costMicros.toString(),
    priceListVersion: call.priceListVersion,
    routingPolicyVersion: call.route?.routingPolicyVersion ?? '',
    stream: call.stream,
    startedAt: call.startedAt,
    consumed: call.consumed,
  };
}
