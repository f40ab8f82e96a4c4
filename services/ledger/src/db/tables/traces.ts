import type { ColumnType, Selectable } from 'kysely';

/** Integer columns Postgres returns as decimal strings (bigint): written as string or bigint. */
export type Int8 = ColumnType<string, string | bigint, string | bigint>;

/** Kinds of credential a request can carry (`x-service-principal`). */
export const principals = ['api_key', 'gateway_token', 'agent_secret'] as const;
export type PrincipalName = (typeof principals)[number];

/**
 * One row per gateway request (docs/api.md). References to organizations, keys
 * and agent records are plain ids, not foreign keys: the auth schema owns
 * those rows, and a trace stays attributable after an agent record is deleted.
 */
export interface TracesTable {
  /** The trace id (32 hex), also the gateway's request id. */
  request_id: string;
  organization_id: string;
  api_key_id: string | null;
  agent_id: string | null;
  principal: PrincipalName;
  /** `X-Service-Client` (at most 200 characters), else the user agent. */
  client_label: string | null;
  user_agent: string | null;
  requested_model: string | null;
  served_model: string | null;
  tier: string | null;
  complexity: number;
  http_status: number;
  /** Public error class; null on success. */
  error_class: string | null;
  latency_ms: number;
  input_tokens: Int8;
  output_tokens: Int8;
  priced: boolean;
  /** Micro-dollars; null when the served model was not in the catalog (unpriced, not free). */
  cost_micros: ColumnType<string | null, string | bigint | null, string | bigint | null>;
  /** The price list version the cost was computed with; null when unpriced or recorded before versions were kept. */
  price_list_version: ColumnType<string | null, string | null | undefined, string | null>;
  /** The routing policy version the call was routed with; null when it was not routed or recorded before versions were kept. */
  routing_policy_version: ColumnType<string | null, string | null | undefined, string | null>;
  stream: boolean;
  started_at: Date;
  /** When the ledger accepted the record. */
  recorded_at: Date;
}
export type TraceRow = Selectable<TracesTable>;
