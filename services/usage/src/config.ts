import { drainConfigShape, env } from '@gateway/lib/config';
import { z } from 'zod';
import type { UsageSettings } from './deps';

/** How reports are read; the embedded mode reads these variables too. */
export const usageSettingsShape = {
  /** Requests a report reads at most; a window holding more gets a truncated report of its newest ones. */
  SCAN_CAP: env.positiveInt(1_000_000),
  /** Longest a report's query may run (shortened to the caller's deadline). */
  QUERY_TIMEOUT_MS: env.positiveInt(10_000),
  /** Postgres work_mem of a report's queries: the sorts stay in memory up to about a million requests at 128 MB. */
  QUERY_WORK_MEM_MB: z.coerce.number().int().min(4).max(2048).default(128),
};

/** Environment of the usage service, checked at start (fail fast, by name). */
export const usageConfigShape = {
  HOST: z.string().default('127.0.0.1'),
  PORT: env.port(50055),
  /** Prometheus scrapes `GET /metrics` here (0: any free port, named in the `listening` line). */
  METRICS_PORT: env.metricsPort(),
  /** A login that is a member of the ledger's read-only role (README: "Read-only access"). */
  DATABASE_URL: env.url(),
  /** Reports that run at once; further ones wait for a connection. */
  DATABASE_POOL_SIZE: env.positiveInt(4),
  ...usageSettingsShape,
  LOG_LEVEL: env.logLevel(),
  /** SIGTERM: DRAIN_DELAY_MS not ready but serving, then DRAIN_TIMEOUT_MS for in-flight work. A report may take edge's USAGE_DEADLINE_MS (10 s by default); 30 s covers it with room. */
  ...drainConfigShape(30_000),
};

export type UsageSettingsConfig = z.infer<z.ZodObject<typeof usageSettingsShape>>;

export function settingsFrom(config: UsageSettingsConfig): UsageSettings {
  return { scanCap: config.SCAN_CAP, queryTimeoutMs: config.QUERY_TIMEOUT_MS, workMemMb: config.QUERY_WORK_MEM_MB };
}
