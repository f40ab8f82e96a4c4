import { trace } from '@opentelemetry/api';
import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger } from 'pino';

/**
 * Field names whose values are secrets wherever they appear in a log object.
 * Values are replaced, not removed, so a reader can see a field was present.
 */
const SECRET_FIELDS = [
  'authorization',
  'cookie',
  'password',
  'secret',
  'credential',
  'token',
  'access_token',
  'refresh_token',
  'api_key',
  'apiKey',
  'provider_key',
  'aiApiKey',
  'providerKey',
  // Skill credentials (the agent service's skill catalog) and the object that carries them.
  'discord_token',
  'discord_app_id',
  'telegram_bot_token',
  'slack_bot_token',
  'slack_signing_secret',
  'config',
];
const SECRET_FIELD_NAMES: ReadonlySet<string> = new Set(SECRET_FIELDS);
/** Headers that are secrets, inside a logged HTTP request (`req.headers`) or response (`res.headers`). */
const SECRET_HEADERS: Readonly<Record<string, ReadonlySet<string>>> = {
  req: new Set(['authorization', 'cookie']),
  res: new Set(['set-cookie']),
};
const CENSOR = '[REDACTED]';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value` with those of its own fields that `names` holds censored: a copy if it has one, else `value` itself. */
function censorFields<T>(value: T, names: ReadonlySet<string>): T {
  if (!isRecord(value)) return value;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    if (!names.has(key)) continue;
    copy ??= { ...value };
    copy[key] = CENSOR;
  }
  return (copy ?? value) as T;
}

/**
 * The secret fields of one log object censored, at the top level and one
 * level down, and the secret headers of a logged request or response. The
 * caller's objects are never changed: what needs censoring is copied. (pino's
 * own `redact` option does the same with wildcard paths, at about ten times
 * the cost of the whole rest of a log line, on every line.)
 */
function redactSecrets(object: Record<string, unknown>): Record<string, unknown> {
  let redacted: Record<string, unknown> | undefined;
  for (const key of Object.keys(object)) {
    const value = object[key];
    // An error is censored once pino has serialized it (its fields are not its own until then).
    let censored = key === 'err' ? value : SECRET_FIELD_NAMES.has(key) ? CENSOR : censorFields(value, SECRET_FIELD_NAMES);
    const headers = SECRET_HEADERS[key];
    if (headers && isRecord(censored) && isRecord(censored.headers)) {
      const censoredHeaders = censorFields(censored.headers, headers);
      if (censoredHeaders !== censored.headers) censored = { ...censored, headers: censoredHeaders };
    }
    if (censored === value) continue;
    redacted ??= { ...object };
    redacted[key] = censored;
  }
  return redacted ?? object;
}

/**
 * Shapes of credentials this system issues. Any match anywhere in a log line
 * is masked too, as a second line of defence behind the field redaction.
 */
export const CREDENTIAL_PATTERNS: readonly RegExp[] = [
  /svc_(?:live|test)_[0-9a-f]{56}/g, // API key
  /gwt_[0-9a-f]{48}/g, // legacy per-agent gateway token
  /pas_[0-9a-f]{48}/g, // legacy platform agent secret
  /rt_[0-9a-f]{64}/g, // refresh token
  // Credentials of other systems that pass through: skill credentials and provider keys.
  // They may end in '-', which \b cannot follow, so the end is "no further token character".
  /\b[MN][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_-])/g, // Discord bot token
  /\b\d{8,10}:[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])/g, // Telegram bot token
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, // Slack token
  /\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}/g, // OpenAI / Anthropic-style provider key
];

export function maskCredentials(text: string): string {
  return CREDENTIAL_PATTERNS.reduce((masked, pattern) => masked.replace(pattern, '[REDACTED]'), text);
}

export interface LoggerOptions {
  service: string;
  level?: string;
  destination?: DestinationStream;
}

export function createLogger({ service, level = 'info', destination }: LoggerOptions): Logger {
  const logger = pino(
    {
      level,
      base: { service },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }), log: redactSecrets },
      serializers: { err: (error: unknown) => censorFields(pino.stdSerializers.err(error as Error), SECRET_FIELD_NAMES) },
      // Every line carries the active trace id, which is also the request id.
      mixin() {
        const span = trace.getActiveSpan();
        if (!span) return {};
        const { traceId, spanId } = span.spanContext();
        return { trace_id: traceId, span_id: spanId };
      },
      // Masks the finished line, so a credential inside a message, a nested
      // field or a serialized error is caught alike.
      hooks: { streamWrite: maskCredentials },
    },
    // Written at once, as pino does by default: an asynchronous write hands each line to a
    // worker thread and back, two wake-ups per line that cost more than the write itself.
    destination ?? pino.destination({ fd: 1, sync: true }),
  );
  // A child's bindings are written on each of its lines: censored like a log object, once, when the child is made.
  // Children inherit this method, and call it with themselves as `this`.
  const pinoChild = logger.child;
  logger.child = function redactingChild(this: Logger, bindings, options) {
    return pinoChild.call(this, redactSecrets(bindings), options);
  } as Logger['child'];
  return logger;
}
