import { env } from '@gateway/lib/config';
import { z } from 'zod';

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

/** Environment of the edge service, checked at start (fail fast, by name). */
export const edgeConfigShape = {
  HOST: z.string().default('127.0.0.1'),
  PORT: env.port(8080),
  /** host:port of the auth gRPC service. */
  AUTH_ADDRESS: z.string().min(1),
  /** Verifies access tokens locally; the auth service signs with the same value. */
  ACCESS_TOKEN_SECRET: env.secret(),
  /** Adds `Secure` to the session cookie; true wherever edge is served over HTTPS. */
  COOKIE_SECURE: z.enum(['true', 'false']).default('false').transform((value) => value === 'true'),
  BODY_LIMIT_BYTES: env.positiveInt(1024 * 1024),
  TRUST_PROXY: trustProxy,
  /** Deadline of every call edge makes to a backend. */
  RPC_DEADLINE_MS: env.positiveInt(2000),
  LOG_LEVEL: env.logLevel(),
};

export type EdgeConfig = z.infer<z.ZodObject<typeof edgeConfigShape>>;

/** What the HTTP layer needs from configuration, independent of where it runs. */
export interface EdgeSettings {
  accessTokenSecret: string;
  cookieSecure: boolean;
  bodyLimitBytes: number;
  trustProxy: TrustProxy;
}

export function settingsFrom(config: EdgeConfig): EdgeSettings {
  return {
    accessTokenSecret: config.ACCESS_TOKEN_SECRET,
    cookieSecure: config.COOKIE_SECURE,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    trustProxy: config.TRUST_PROXY,
  };
}
