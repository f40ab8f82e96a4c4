import { sql, type Kysely } from 'kysely';
import type { LedgerDatabase } from '@gateway/ledger/db';

/**
 * `count` traces spread evenly from `from` to `to` (each in its own slot, at
 * a random point of it), cycling over `organizations`. About 4.5% fail
 * (validation without a model, provider, timeout), 1% more are unpriced;
 * latencies are log-normal around 400 ms; 10 keys, 10 agent records, 40% of
 * the traffic bound to an agent.
 */
export async function seedTraces(db: Kysely<LedgerDatabase>, label: string, organizations: string[], count: number, from: Date, to: Date): Promise<void> {
  await sql`
    insert into ledger.traces (request_id, organization_id, api_key_id, agent_id, principal, client_label, user_agent,
      requested_model, served_model, tier, complexity, http_status, error_class, latency_ms, input_tokens, output_tokens,
      priced, cost_micros, stream, started_at, recorded_at)
    select md5(${label} || '-' || i), (${organizations}::uuid[])[1 + i % ${organizations.length}],
      md5('key-' || floor(k * 10))::uuid,
      case when a < 0.6 then null else md5('agent-' || floor(a * 10))::uuid end,
      'api_key', 'bench', 'bench', 'auto',
      case when e < 0.02 then null else (array['gpt-4.1', 'gpt-4.1-mini', 'claude-sonnet-4', 'gemini-2.5-flash', 'o4-mini'])[1 + floor(m * 5)::int] end,
      'standard', 40,
      case when e < 0.02 then 400 when e < 0.04 then 502 when e < 0.045 then 504 else 200 end,
      case when e < 0.02 then 'validation' when e < 0.04 then 'provider' when e < 0.045 then 'timeout' end,
      least(600000, greatest(1, round(exp(ln(400) + 0.8 * sqrt(-2 * ln(1 - l1)) * cos(2 * pi() * l2)))))::int,
      100, 200,
      e >= 0.045 and p > 0.01,
      case when e >= 0.045 and p > 0.01 then floor(c * 5000)::bigint end,
      false,
      ${from}::timestamptz + (${to}::timestamptz - ${from}::timestamptz) * ((i - t) / ${count}::float8),
      now()
    from (
      select i, random() k, random() a, random() e, random() m, random() l1, random() l2, random() p, random() c, random() t
      from generate_series(1, ${count}) as i
    ) as draws`.execute(db);
}
