import { drainConfigShape, env } from '@gateway/lib/config';
import { z } from 'zod';

/** Defaults of the settings below, also the embedded mode's settings. */
const DEFAULTS = {
  imageMaxCount: 2,
  imageMaxBytes: 256 * 1024,
  toolRoundsMax: 4,
  replyMaxTokens: 1024,
  historyMessages: 20,
  schedulerIntervalMs: 5000,
} as const;

const hexKey = z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters (32 bytes)');
const flag = (fallback: 'true' | 'false') => z.enum(['true', 'false']).default(fallback).transform((value) => value === 'true');

/** Environment of the agent service, checked at start (fail fast, by name). */
export const agentConfigShape = {
  HOST: z.string().default('127.0.0.1'),
  PORT: env.port(50056),
  /** Prometheus scrapes `GET /metrics` here (0: any free port, named in the `listening` line). */
  METRICS_PORT: env.metricsPort(),
  DATABASE_URL: env.url(),
  DATABASE_POOL_SIZE: env.positiveInt(10),
  LOG_LEVEL: env.logLevel(),
  /** SIGTERM: DRAIN_DELAY_MS not ready but serving, then DRAIN_TIMEOUT_MS for in-flight work. A chat may run as long as edge's AGENT_CHAT_DEADLINE_MS (180 s by default). */
  ...drainConfigShape(180_000),
  /** host:port of the gRPC services the agent asks. */
  AUTH_ADDRESS: z.string().min(1),
  LEDGER_ADDRESS: z.string().min(1),
  ROUTER_ADDRESS: z.string().min(1),
  PRICING_ADDRESS: z.string().min(1),
  /** Deadline of every gRPC call the agent makes. */
  RPC_DEADLINE_MS: env.positiveInt(2000),
  /** Edge's base URL: chats go through its gateway (`/api/gateway/v1`), health asks its /readyz. */
  GATEWAY_URL: env.url(),
  /** The legacy platform agent secret (`pas_...`) the agent authenticates to the gateway with. A secret: never logged. */
  AGENT_PLATFORM_SECRET: z.string().regex(/^pas_[0-9a-f]{48}$/, 'must be a platform agent secret (pas_ and 48 hex characters)'),
  /** One gateway call, from request to the whole answer. */
  GATEWAY_TIMEOUT_MS: env.positiveInt(60_000),
  /** AES-256-GCM key (64 hex characters) of skill credentials at rest. */
  SKILL_CREDENTIALS_KEY: hexKey,
  /** Images of one chat message: how many, and the largest decoded size. Both must fit edge's BODY_LIMIT_BYTES. */
  IMAGE_MAX_COUNT: env.positiveInt(DEFAULTS.imageMaxCount),
  IMAGE_MAX_BYTES: env.positiveInt(DEFAULTS.imageMaxBytes),
  /** Model calls one chat may make while the model keeps calling tools. */
  TOOL_ROUNDS_MAX: env.positiveInt(DEFAULTS.toolRoundsMax),
  /** max_completion_tokens of every reply the agent asks for (also the token budget's output estimate). */
  REPLY_MAX_TOKENS: env.positiveInt(DEFAULTS.replyMaxTokens),
  /** Earlier messages of the session sent with a new one. */
  HISTORY_MESSAGES: env.positiveInt(DEFAULTS.historyMessages),
  /** How often the scheduler looks for due workflows; every replica runs one. */
  SCHEDULER_INTERVAL_MS: env.positiveInt(DEFAULTS.schedulerIntervalMs),
  SCHEDULER_ENABLED: flag('true'),
  /** Apply pending migrations at start (the local stack and tests); deploy runs them as an init step. */
  MIGRATE_ON_START: flag('false'),
};

export type AgentConfig = z.infer<z.ZodObject<typeof agentConfigShape>>;

/** What the agent logic needs from configuration, independent of where it runs. */
export interface AgentSettings {
  skillCredentialsKey: Buffer;
  images: { maxCount: number; maxBytes: number };
  toolRoundsMax: number;
  replyMaxTokens: number;
  historyMessages: number;
}

export function settingsFrom(config: AgentConfig): AgentSettings {
  return {
    skillCredentialsKey: Buffer.from(config.SKILL_CREDENTIALS_KEY, 'hex'),
    images: { maxCount: config.IMAGE_MAX_COUNT, maxBytes: config.IMAGE_MAX_BYTES },
    toolRoundsMax: config.TOOL_ROUNDS_MAX,
    replyMaxTokens: config.REPLY_MAX_TOKENS,
    historyMessages: config.HISTORY_MESSAGES,
  };
}

/** Every setting at its default, with the given credentials key (the embedded mode). */
export function defaultSettings(skillCredentialsKey: Buffer): AgentSettings & { schedulerIntervalMs: number } {
  return {
    skillCredentialsKey,
    images: { maxCount: DEFAULTS.imageMaxCount, maxBytes: DEFAULTS.imageMaxBytes },
    toolRoundsMax: DEFAULTS.toolRoundsMax,
    replyMaxTokens: DEFAULTS.replyMaxTokens,
    historyMessages: DEFAULTS.historyMessages,
    schedulerIntervalMs: DEFAULTS.schedulerIntervalMs,
  };
}
