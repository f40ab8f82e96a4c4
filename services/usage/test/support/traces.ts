import { randomBytes, randomUUID } from 'node:crypto';
import { sql, type InsertObject, type Kysely } from 'kysely';
import type { LedgerDatabase } from '@gateway/ledger/db';
import { errorMapping } from '@gateway/lib/errors';

/** The fields of a trace a usage report reads; everything else gets a plain value. */
export interface TraceSeed {
  organizationId: string;
  startedAt: Date;
  /** Added to startedAt: the database keeps microseconds, which a Date cannot hold. */
  microseconds?: number;
  latencyMs: number;
  servedModel?: string | null;
  apiKeyId?: string | null;
  agentId?: string | null;
  /** Any text: the table takes classes a later version of edge may add. */
  errorClass?: string | null;
  /** Null: unpriced. */
  costMicros?: bigint | null;
}

/** An HTTP status edge would have answered with for the class. */
function statusOf(errorClass: string): number {
  return Object.values(errorMapping).find((mapping) => mapping.errorClass === errorClass)?.http ?? 500;
}

export function traceRow(seed: TraceSeed): InsertObject<LedgerDatabase, 'traces'> {
  const costMicros = seed.costMicros === undefined ? 1000n : seed.costMicros;
  const apiKeyId = seed.apiKeyId === undefined ? null : seed.apiKeyId;
  return {
    request_id: randomBytes(16).toString('hex'),
    organization_id: seed.organizationId,
    api_key_id: apiKeyId,
    agent_id: seed.agentId ?? null,
    principal: apiKeyId === null ? 'gateway_token' : 'api_key',
    client_label: 'usage-test',
    user_agent: 'jest',
    requested_model: 'auto',
    served_model: seed.servedModel === undefined ? 'gpt-4.1-mini' : seed.servedModel,
    tier: 'standard',
    complexity: 10,
    http_status: seed.errorClass ? statusOf(seed.errorClass) : 200,
    error_class: seed.errorClass ?? null,
    latency_ms: seed.latencyMs,
    input_tokens: '100',
    output_tokens: '20',
    priced: costMicros !== null,
    cost_micros: costMicros,
    stream: false,
    started_at: seed.microseconds ? sql<Date>`${seed.startedAt}::timestamptz + ${seed.microseconds}::int * interval '1 microsecond'` : seed.startedAt,
    recorded_at: seed.startedAt,
  };
}

/** Writes the rows straight into ledger.traces, as the ledger's writer would. */
export async function insertTraces(db: Kysely<LedgerDatabase>, seeds: TraceSeed[]): Promise<void> {
  if (seeds.length > 0) await db.insertInto('traces').values(seeds.map(traceRow)).execute();
}

export const newId = (): string => randomUUID();

const DAY_MS = 86_400_000;

/** 00:00 UTC of the day `days` days before the one `at` falls on (0: that day). */
export function utcMidnight(at: Date, days = 0): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()) - days * DAY_MS);
}

/** Runs one statement as the usage service's role, outside any read-only transaction: what the grants alone allow. */
export async function runAsReader(db: Kysely<LedgerDatabase>, statement: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`set local role ledger_usage_reader`.execute(trx);
    await sql.raw(statement).execute(trx);
  });
}
