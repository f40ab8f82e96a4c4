import { z } from 'zod';

/**
 * Reads the environment through a zod schema and fails fast, naming every
 * variable that is missing or malformed (never echoing its value, which may
 * be a secret).
 */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

export function loadConfig<Shape extends z.ZodRawShape>(
  shape: Shape,
  env: NodeJS.ProcessEnv = process.env,
): z.infer<z.ZodObject<Shape>> {
  const result = z.object(shape).safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const name = issue.path.join('.');
    return env[name] === undefined ? `${name}: required but not set` : `${name}: ${issue.message}`;
  });
  throw new ConfigError(problems);
}

/** After SIGTERM, how long a process keeps serving while reporting not ready (lib/lifecycle.ts). */
export const DEFAULT_DRAIN_DELAY_MS = 5_000;

const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

/** Reusable variable parsers. */
export const env = {
  port,
  /** The OpenTelemetry Prometheus exporter's customary port; every pod has its own. */
  metricsPort: () => port(9464),
  url: () => z.string().url(),
  optionalUrl: () => z.string().url().optional(),
  /** At least 32 characters: used for HMAC and cipher keys. */
  secret: () => z.string().min(32, 'must be at least 32 characters'),
  positiveInt: (fallback: number) => z.coerce.number().int().positive().default(fallback),
  logLevel: () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  keyEnvironment: () => z.enum(['live', 'test']).default('test'),
};

/**
 * How the process drains on SIGTERM (lib/lifecycle.ts). `timeoutMs` is the
 * service's default for DRAIN_TIMEOUT_MS: the longest request or stream it
 * serves, so that a rollout lets every one of them finish.
 */
export function drainConfigShape(timeoutMs: number, delayMs = DEFAULT_DRAIN_DELAY_MS) {
  return {
    /** Keep serving this long after reporting not ready, while load balancers stop sending (0: stop at once). */
    DRAIN_DELAY_MS: z.coerce.number().int().min(0).default(delayMs),
    /** Then let in-flight requests and streams finish for up to this long. */
    DRAIN_TIMEOUT_MS: env.positiveInt(timeoutMs),
  };
}
