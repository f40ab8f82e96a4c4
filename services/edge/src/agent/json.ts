import { formatUsd } from '@gateway/lib/money';
import type {
  ChatMessage,
  Health,
  LogEntry,
  MemoryEntry,
  RecommendModelResponse,
  Session,
  SettingChange,
  Skill,
  Workflow,
} from '@gateway/proto/gen/gateway/agent/v1/agent';
import { InferenceMode, type AgentRecord } from '@gateway/proto/gen/gateway/auth/v1/auth';
import { Meter, type QuotaState } from '@gateway/proto/gen/gateway/ledger/v1/ledger';
import { BaselineReason } from '@gateway/proto/gen/gateway/pricing/v1/pricing';
import type { QuotaJson } from '../contract';
import { agentEnums, nameOf } from './enums';

/**
 * The JSON of the agent API (services/agent/README.md has every shape).
 * Field names follow docs/api.md#agent-api where it names them (the agent
 * status, and `sessionId` for a session); everything else is snake_case like the
 * rest of the API. Times are ISO-8601 UTC, money a decimal USD string with
 * 6 places, and a value that does not exist is null, never a placeholder.
 */
const iso = (moment: Date | undefined) => (moment ? moment.toISOString() : null);
const orNull = (text: string) => (text === '' ? null : text);
const parsed = (json: string): unknown => (json === '' ? null : JSON.parse(json));

const METERS: Partial<Record<Meter, QuotaJson['meter']>> = { [Meter.METER_SPEND]: 'spend', [Meter.METER_REQUESTS]: 'requests', [Meter.METER_LEGACY]: 'legacy' };

/**
 * The period's usage of one meter, in the meter's own unit: dollars for
 * spend, requests or messages otherwise; what calls in flight hold when the
 * ledger reported it. Also the Console's quota body (console/quota.ts).
 */
export function quotaJson(quota: QuotaState | undefined): QuotaJson | null {
  const meter = quota && METERS[quota.meter];
  if (!quota || !meter) return null;
  const resetsAt = iso(quota.resetsAt);
  if (meter === 'spend') {
    return {
      meter,
      allowance_usd: formatUsd(BigInt(quota.allowanceMicros)),
      spent_usd: formatUsd(BigInt(quota.spentMicros)),
      remaining_usd: formatUsd(BigInt(quota.remainingMicros)),
      ...(quota.heldMicros === undefined ? {} : { held_usd: formatUsd(BigInt(quota.heldMicros)) }),
      resets_at: resetsAt,
    };
  }
  return {
    meter,
    limit: Number(quota.limit),
    used: Number(quota.used),
    remaining: Number(quota.remaining),
    credits: Number(quota.credits),
    ...(quota.held === undefined ? {} : { held: Number(quota.held) }),
    resets_at: resetsAt,
  };
}

/** The agent record's settings as docs/api.md#agent-api names them. */
export function agentRecordJson(agent: AgentRecord) {
  return {
    id: agent.id,
    status: agent.status,
    // No machine stands behind the record any more.
    server_ip: orNull(agent.serverIp),
    server_tier: agent.serverTier,
    server_region: agent.serverRegion,
    ai_model: agent.aiModel,
    plan_tier: agent.planTier,
    messenger_type: agent.messengerType,
    mode: agent.mode === InferenceMode.INFERENCE_MODE_BYOK ? 'byok' : 'managed',
  };
}

/**
 * The agent of a status (docs/api.md#agent-api). messages_used and messages_limit are the
 * ledger's counts for the period when the agent's meter counts messages or
 * requests; a spend plan counts dollars (see `quota`), so they are null there
 * rather than invented.
 */
export function agentStatusJson(agent: AgentRecord, quota: QuotaState | undefined) {
  const counts = quota && quota.meter !== Meter.METER_SPEND ? { used: Number(quota.used), limit: Number(quota.limit) } : undefined;
  return { ...agentRecordJson(agent), messages_used: counts?.used ?? null, messages_limit: counts?.limit ?? null };
}

export function sessionJson(session: Session) {
  return {
    sessionId: session.sessionId,
    title: session.title,
    category: nameOf(agentEnums.sessionCategory, session.category),
    status: nameOf(agentEnums.sessionStatus, session.status),
    icon: orNull(session.icon),
    pinned: session.pinned,
    is_default: session.isDefault,
    message_count: session.messageCount,
    created_at: iso(session.createdAt),
    updated_at: iso(session.updatedAt),
    last_message_at: iso(session.lastMessageAt),
  };
}

export function messageJson(message: ChatMessage) {
  return {
    id: message.id,
    session_id: message.sessionId,
    role: message.role,
    content: message.content,
    tool: message.tool
      ? { name: message.tool.name, arguments: parsed(message.tool.argumentsJson), result: parsed(message.tool.resultJson), ok: message.tool.ok }
      : null,
    images: message.images.map((image) => ({ media_type: image.mediaType, bytes: image.bytes, sha256: image.sha256 })),
    request_id: orNull(message.requestId),
    workflow_id: orNull(message.workflowId),
    created_at: iso(message.createdAt),
  };
}

/** Never a credential: whether each field is set, and at most its last four characters. */
export function skillJson(skill: Skill) {
  return {
    name: skill.name,
    description: skill.description,
    enabled: skill.enabled,
    configured: skill.configured,
    credentials: Object.fromEntries(skill.credentials.map((field) => [field.name, { set: field.set, last_four: orNull(field.lastFour) }])),
    updated_at: iso(skill.updatedAt),
  };
}

export function memoryJson(memory: MemoryEntry) {
  return {
    id: memory.id,
    key: memory.key,
    value: memory.value,
    category: nameOf(agentEnums.memoryCategory, memory.category),
    created_at: iso(memory.createdAt),
    updated_at: iso(memory.updatedAt),
  };
}

export function workflowJson(workflow: Workflow) {
  return {
    id: workflow.id,
    command: nameOf(agentEnums.automateCommand, workflow.command),
    kind: workflow.kind,
    task: workflow.task,
    text: workflow.sourceText,
    schedule: workflow.schedule,
    cron: orNull(workflow.cron),
    next_run_at: iso(workflow.nextRunAt),
    last_run_at: iso(workflow.lastRunAt),
    last_run_status: orNull(workflow.lastRunStatus),
    run_count: workflow.runCount,
    status: workflow.status,
    session_id: orNull(workflow.sessionId),
    created_at: iso(workflow.createdAt),
  };
}

export function logJson(entry: LogEntry) {
  return { id: entry.id, event: entry.event, details: parsed(entry.detailsJson), created_at: iso(entry.createdAt) };
}

export function healthJson(health: Health) {
  return {
    status: health.status,
    dependencies: Object.fromEntries(health.dependencies.map((dependency) => [dependency.name, dependency.state])),
  };
}

export function changeJson(change: SettingChange) {
  return { field: change.field, from: change.previous, to: change.current };
}

/** Money a call would cost; null when unpriced (unknown, not free). */
export const usdOrNull = (priced: boolean, micros: string) => (priced ? formatUsd(BigInt(micros)) : null);

export function recommendationJson(answer: RecommendModelResponse) {
  const baseline = answer.baseline && answer.baseline.reason !== BaselineReason.BASELINE_REASON_UNSPECIFIED ? answer.baseline : undefined;
  return {
    requested_model: answer.requestedModel,
    model: answer.model,
    provider: answer.provider,
    tier: answer.tier,
    complexity: answer.complexity,
    routed: answer.routed,
    reason: answer.reason,
    signals: answer.signals.map(({ name, points }) => ({ name, points })),
    estimate: {
      input_tokens: Number(answer.inputTokens),
      output_tokens: Number(answer.outputTokens),
      priced: answer.priced,
      cost_usd: usdOrNull(answer.priced, answer.costMicros),
      baseline: baseline
        ? {
            model: baseline.model,
            reason: baseline.reason === BaselineReason.BASELINE_REASON_NAMED ? 'named' : 'plan_ceiling',
            cost_usd: formatUsd(BigInt(baseline.costMicros)),
          }
        : null,
      savings_usd: baseline && answer.priced ? formatUsd(BigInt(answer.savingsMicros)) : null,
    },
  };
}
