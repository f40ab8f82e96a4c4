import type { Catalog } from '@gateway/lib/catalog';
import { drainConfigShape, env } from '@gateway/lib/config';
import { parseUsd } from '@gateway/lib/money';
import { z } from 'zod';
import type { GatewayCatalog, GatewaySettings } from './gateway/deps';
import { DEFAULT_LEASE_TIMING, type LeaseSettings } from './gateway/leases';
import { providerConfigShape } from './provider';

/**
 * Express's `trust proxy` setting, from TRUST_PROXY: `true` / `false`, a hop
 * count, or a comma-separated list of addresses, subnets or the names
 * `loopback`, `linklocal`, `uniquelocal`. It decides what `req.ip` (the
 * source address of the failed-login throttle) is, so the default trusts no proxy.
 */
export type TrustProxy = boolean | number | string[];

const trustProxy = z
  .string()
  .trim()
  .default('false')
  .transform((value): TrustProxy => {
    if (value === 'true' || value === 'false') return value === 'true';
    if (/^\d+$/.test(value)) return Number(value);
    return value.split(',').map((entry) => entry.trim()).filter(Boolean);
  });

/** How edge holds its allowance leases (docs/decisions.md#admission-and-allowance-leases); the embedded mode takes the defaults. */
export const leaseConfigShape = {
  /**
   * What edge asks the ledger for beyond a call's worst case when its lease on a spend allowance
   * runs short (a decimal USD amount): larger slices ask the ledger less often, smaller ones
   * strand less of an allowance in one replica. The ledger grants less near the allowance's end.
   */
  EDGE_LEASE_SLICE_USD: z
    .string()
    .default('1.00')
    .transform((value, context) => {
      try {
        const micros = parseUsd(value);
        if (micros >= 0n) return micros;
      } catch {
        // reported below
      }
      context.addIssue({ code: z.ZodIssueCode.custom, message: 'must be a USD amount of at least 0 with at most 6 decimal places' });
      return z.NEVER;
    }),
  /** The same for request-count allowances (BYOK, legacy plans), in requests. */
  EDGE_LEASE_SLICE_REQUESTS: z.coerce.number().int().min(0).default(100),
  /** Edge stops admitting against a lease this long before the ledger's expiry of it (at most a quarter of the lease). */
  EDGE_LEASE_SAFETY_MS: env.positiveInt(1000),
};

/** How edge's HTTP server keeps connections; the embedded mode serves edge's app with the same. */
export const keepAliveConfigShape = {
  /**
   * How long an idle client connection stays open. Longer than the idle timeout of what pools
   * connections to edge (proxies commonly 60 s, Node's own clients 4 s): the pool then closes
   * first, and never sends a request on a connection edge is closing at that moment, which the
   * caller would see reset and unanswered. Node's own default, 5 s, races them.
   */
  HTTP_KEEP_ALIVE_TIMEOUT_MS: env.positiveInt(65_000),
};

/** Environment of the edge service, checked at start (fail fast, by name). */
export const edgeConfigShape = {
  HOST: z.string().default('127.0.0.1'),
  PORT: env.port(8080),
  /** Prometheus scrapes `GET /metrics` here (0: any free port, named in the `listening` line). */
  METRICS_PORT: env.metricsPort(),
  /** host:port of the auth gRPC service. */
  AUTH_ADDRESS: z.string().min(1),
  /** Verifies access tokens locally; the auth service signs with the same value. */
  ACCESS_TOKEN_SECRET: env.secret(),
  /** Adds `Secure` to the session cookie; true wherever edge is served over HTTPS. */
  COOKIE_SECURE: z.enum(['true', 'false']).default('false').transform((value) => value === 'true'),
  BODY_LIMIT_BYTES: env.positiveInt(1024 * 1024),
  ...keepAliveConfigShape,
  TRUST_PROXY: trustProxy,
  /** Deadline of every call edge makes to a backend. */
  RPC_DEADLINE_MS: env.positiveInt(2000),
  LOG_LEVEL: env.logLevel(),
  /** SIGTERM: DRAIN_DELAY_MS not ready but serving, then DRAIN_TIMEOUT_MS for in-flight work. Its longest request is an agent chat (AGENT_CHAT_DEADLINE_MS, 180 s by default); provider calls and streams get the same. */
  ...drainConfigShape(180_000),
  /** host:port of the router, pricing and ledger gRPC services. */
  ROUTER_ADDRESS: z.string().min(1),
  PRICING_ADDRESS: z.string().min(1),
  LEDGER_ADDRESS: z.string().min(1),
  /** host:port of the agent gRPC service (the /api/agent routes). */
  AGENT_ADDRESS: z.string().min(1),
  /** Deadline of an agent call: a status asks every backend's health, so longer than RPC_DEADLINE_MS. */
  AGENT_DEADLINE_MS: env.positiveInt(10_000),
  /** Deadline of an agent chat, which waits for several model calls through the gateway. */
  AGENT_CHAT_DEADLINE_MS: env.positiveInt(180_000),
  /** The model catalog (providers' base URLs and key variables, models' limits, plans' meters); watched: a change applies from the next call. */
  CATALOG_PATH: z.string().optional(),
  /** AES-256-GCM key (64 hex characters) that BYOK provider keys are stored under; the auth service's SECRETS_KEY. */
  SECRETS_KEY: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters (32 bytes)'),
  /**
   * The ledger commits a call's record only within this many ms of receiving it, else it records
   * nothing and the response goes out with x-service-metered: false. It is how long a slow record
   * can hold up a response.
   */
  RECORD_DEADLINE_MS: env.positiveInt(250),
  /**
   * How long past RECORD_DEADLINE_MS edge waits for the ledger's answer, so that
   * x-service-metered is what the ledger did (a record committed in time but answered late is
   * still metered). Only a ledger that answers nothing by then gets x-service-metered: false
   * unconfirmed; an unavailable ledger fails at once.
   */
  RECORD_ANSWER_GRACE_MS: env.positiveInt(2000),
  ...leaseConfigShape,
  /** Carries auth's principal invalidations; without it every gateway call is verified by auth. */
  REDIS_URL: env.optionalUrl(),
  /** How long a verified credential is reused (needs REDIS_URL); 0 verifies every call with auth. */
  PRINCIPAL_CACHE_TTL_MS: z.coerce.number().int().min(0).max(60_000).default(30_000),
  PRINCIPAL_CACHE_MAX_ENTRIES: env.positiveInt(10_000),
  /** Namespace of the invalidation channels; auth's PRINCIPAL_EVENTS_PREFIX. */
  PRINCIPAL_EVENTS_PREFIX: z.string().min(1).default('gateway'),
  /** The built Console (services/console/dist by default), served under /console. */
  CONSOLE_DIR: z.string().min(1).optional(),
  /** host:port of the usage gRPC service. */
  USAGE_ADDRESS: z.string().min(1),
  /** Deadline of a usage report, which reads up to the usage service's SCAN_CAP requests. */
  USAGE_DEADLINE_MS: env.positiveInt(10_000),
  ...providerConfigShape,
};

export type EdgeConfig = z.infer<z.ZodObject<typeof edgeConfigShape>>;

/**
 * Deadline of a password grant (auth's Login). It waits on scrypt in auth, slow on purpose (about
 * 0.1 s on an idle core) and queued behind other sign-ins in auth's thread pool: under load it
 * outlasts an ordinary call's RPC_DEADLINE_MS, and a right password must not become a 504.
 */
export const PASSWORD_GRANT_DEADLINE_MS = 10_000;

/** What the HTTP layer needs from configuration, independent of where it runs. */
export interface EdgeSettings {
  accessTokenSecret: string;
  /** How long an agent chat may take (AGENT_CHAT_DEADLINE_MS); absent: the agent client's default. */
  agentChatDeadlineMs?: number;
  cookieSecure: boolean;
  bodyLimitBytes: number;
  trustProxy: TrustProxy;
  /** The built Console's directory; absent: services/console/dist. */
  consoleDir?: string;
}

export function settingsFrom(config: EdgeConfig): EdgeSettings {
  return {
    accessTokenSecret: config.ACCESS_TOKEN_SECRET,
    agentChatDeadlineMs: config.AGENT_CHAT_DEADLINE_MS,
    cookieSecure: config.COOKIE_SECURE,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    trustProxy: config.TRUST_PROXY,
    ...(config.CONSOLE_DIR === undefined ? {} : { consoleDir: config.CONSOLE_DIR }),
  };
}

/**
 * What the hot path reads of a catalog. A managed provider key is read from
 * the variable the catalog names for its provider (e.g. OPENAI_API_KEY); a
 * provider with no key set answers 503 naming it, rather than calling out
 * unauthenticated.
 */
export function gatewayCatalogFrom(catalog: Pick<Catalog, 'providers' | 'models' | 'plans'>, environment: NodeJS.ProcessEnv = process.env): GatewayCatalog {
  const managedProviderKeys = new Map<string, string>();
  for (const [provider, { api_key_env }] of Object.entries(catalog.providers)) {
    const key = environment[api_key_env];
    if (key) managedProviderKeys.set(provider, key);
  }
  return {
    models: catalog.models,
    planMeters: new Map([...catalog.plans.values()].map((plan) => [plan.name, plan.meter])),
    managedProviderKeys,
  };
}

/** Gateway settings, with the catalog in force (`catalog.current()`) for the hot path to read on every call. */
export function gatewaySettingsFrom(
  config: Pick<EdgeConfig, 'SECRETS_KEY' | 'RECORD_DEADLINE_MS' | 'RECORD_ANSWER_GRACE_MS'>,
  catalog: GatewaySettings['catalog'],
): GatewaySettings {
  return {
    catalog,
    secretsKey: Buffer.from(config.SECRETS_KEY, 'hex'),
    recordTiming: { commitWithinMs: config.RECORD_DEADLINE_MS, answerGraceMs: config.RECORD_ANSWER_GRACE_MS },
  };
}

/** How this replica holds its allowance leases. */
export function leaseSettingsFrom(config: z.infer<z.ZodObject<typeof leaseConfigShape>>): LeaseSettings {
  return {
    ...DEFAULT_LEASE_TIMING,
    sliceMicros: config.EDGE_LEASE_SLICE_USD,
    sliceRequests: BigInt(config.EDGE_LEASE_SLICE_REQUESTS),
    safetyMarginMs: config.EDGE_LEASE_SAFETY_MS,
  };
}
