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
const REDACT_PATHS = [
  ...SECRET_FIELDS,
  ...SECRET_FIELDS.map((field) => `*.${field}`),
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
];

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
  return pino(
    {
      level,
      base: { service },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
      formatters: { level: (label) => ({ level: label }) },
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
    destination ?? pino.destination({ fd: 1, sync: false }),
  );
}
