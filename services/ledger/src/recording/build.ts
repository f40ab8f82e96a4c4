import type { MeterName } from '@gateway/lib/catalog';
import { periodDate, type Period } from '../quota/period';
import type { ValidRecord } from '../rpc/schemas';
import type { RecordPayload } from './payload';

/** What a request counts on its meter: its cost (spend) or one request, and only if the provider was reached. */
export function usageOf(record: ValidRecord, meter: MeterName): bigint {
  if (!record.consumed) return 0n;
  if (meter !== 'spend') return 1n;
  // Unpriced is not free, but there is no amount to count.
  return record.priced ? record.costMicros : 0n;
}

export function buildPayload(record: ValidRecord, meter: MeterName, period: Period, recordedAt: Date): RecordPayload {
  const cost = record.priced ? record.costMicros : null;
  return {
    request_id: record.requestId,
    organization_id: record.subject.organizationId,
    api_key_id: record.apiKeyId,
    agent_id: record.subject.agentId,
    principal: record.principal,
    client_label: record.clientLabel,
    user_agent: record.userAgent,
    requested_model: record.requestedModel,
    served_model: record.servedModel,
    tier: record.tier,
    complexity: record.complexity,
    http_status: record.httpStatus,
    error_class: record.errorClass,
    latency_ms: record.latencyMs,
    input_tokens: record.inputTokens.toString(),
    output_tokens: record.outputTokens.toString(),
    priced: record.priced,
    cost_micros: cost === null ? null : cost.toString(),
    price_list_version: record.priceListVersion,
    routing_policy_version: record.routingPolicyVersion,
    stream: record.stream,
    started_at: record.startedAt.toISOString(),
    recorded_at: recordedAt.toISOString(),
    meter,
    amount_micros: (record.consumed && cost !== null ? cost : 0n).toString(),
    requests: record.consumed ? 1 : 0,
    period: periodDate(period),
  };
}
