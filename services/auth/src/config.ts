import { drainConfigShape, env } from '@gateway/lib/config';
import { z } from 'zod';

/** Environment of the auth service, checked at start (fail fast, by name). */
export const authConfigShape = {
  HOST: z.string().default('127.0.0.1'),
  PORT: env.port(50051),
  /** Prometheus scrapes `GET /metrics` here (0: any free port, named in the `listening` line). */
  METRICS_PORT: env.metricsPort(),
  DATABASE_URL: env.url(),
  DATABASE_POOL_SIZE: env.positiveInt(10),
  REDIS_URL: env.url(),
  LOG_LEVEL: env.logLevel(),
  /** SIGTERM: DRAIN_DELAY_MS not ready but serving, then DRAIN_TIMEOUT_MS for in-flight work. Its callers' deadlines are at most a few seconds; 30 s covers them with room. */
  ...drainConfigShape(30_000),
  /** `live` in production, `test` elsewhere: the marker inside every new key. */
  KEY_ENVIRONMENT: env.keyEnvironment(),
  /** Signs access tokens; edge verifies with the same value. */
  ACCESS_TOKEN_SECRET: env.secret(),
  ACCESS_TOKEN_TTL_SECONDS: env.positiveInt(900),
  REFRESH_TOKEN_TTL_DAYS: env.positiveInt(30),
  /** AES-256-GCM key (64 hex characters) for provider keys at rest. */
  SECRETS_KEY: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters (32 bytes)'),
  /**
   * Failed logins allowed in one window: for one account from one source address, from one
   * source across accounts, and for one account across every source but those it signed in from.
   */
  LOGIN_MAX_FAILURES_PER_ACCOUNT_SOURCE: env.positiveInt(5),
  LOGIN_MAX_FAILURES_PER_SOURCE: env.positiveInt(20),
  LOGIN_MAX_FAILURES_PER_ACCOUNT: env.positiveInt(100),
  LOGIN_THROTTLE_WINDOW_SECONDS: env.positiveInt(900),
  /** Namespace of the Redis channels that carry principal invalidations to edge (shared with edge). */
  PRINCIPAL_EVENTS_PREFIX: z.string().min(1).default('gateway'),
  /** Longest wait for every edge replica to acknowledge an invalidation before a revoke or edit returns. */
  PRINCIPAL_INVALIDATION_TIMEOUT_MS: env.positiveInt(1000),
  /** Apply pending migrations at start (the local stack and tests); deploy runs them as an init step. */
  MIGRATE_ON_START: z.enum(['true', 'false']).default('false').transform((value) => value === 'true'),
};

export type AuthConfig = z.infer<z.ZodObject<typeof authConfigShape>>;

export interface LoginThrottleSettings {
  maxFailuresPerAccountSource: number;
  maxFailuresPerSource: number;
  maxFailuresPerAccount: number;
  windowSeconds: number;
}

/** What the service logic needs from configuration, independent of where it runs. */
export interface AuthSettings {
  keyEnvironment: 'live' | 'test';
  accessTokenSecret: string;
  accessTokenTtlSeconds: number;
  refreshTokenTtlDays: number;
  secretsKey: Buffer;
  loginThrottle: LoginThrottleSettings;
}

export function settingsFrom(config: AuthConfig): AuthSettings {
  return {
    keyEnvironment: config.KEY_ENVIRONMENT,
    accessTokenSecret: config.ACCESS_TOKEN_SECRET,
    accessTokenTtlSeconds: config.ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenTtlDays: config.REFRESH_TOKEN_TTL_DAYS,
    secretsKey: Buffer.from(config.SECRETS_KEY, 'hex'),
    loginThrottle: {
      maxFailuresPerAccountSource: config.LOGIN_MAX_FAILURES_PER_ACCOUNT_SOURCE,
      maxFailuresPerSource: config.LOGIN_MAX_FAILURES_PER_SOURCE,
      maxFailuresPerAccount: config.LOGIN_MAX_FAILURES_PER_ACCOUNT,
      windowSeconds: config.LOGIN_THROTTLE_WINDOW_SECONDS,
    },
  };
}
