import { z } from 'zod';
import { DEFAULT_PROVIDER_TIMEOUTS, type ProviderTimeouts } from './client';

/**
 * The adapter's environment, for the service's zod config. Base URL overrides
 * (UPSTREAM_BASE_URL, PROVIDER_BASE_URL_<PROVIDER>) are read from the whole
 * environment by resolveUpstreams, since the provider names come from the catalog.
 */
const milliseconds = (fallback: number) => z.coerce.number().int().positive().default(fallback);

export const providerConfigShape = {
  /** The whole non-streaming call to a provider; for a stream, until its headers. */
  PROVIDER_TIMEOUT_MS: milliseconds(DEFAULT_PROVIDER_TIMEOUTS.requestMs),
  /** Longest silence allowed inside a stream. */
  PROVIDER_STREAM_IDLE_TIMEOUT_MS: milliseconds(DEFAULT_PROVIDER_TIMEOUTS.streamIdleMs),
  PROVIDER_CONNECT_TIMEOUT_MS: milliseconds(DEFAULT_PROVIDER_TIMEOUTS.connectMs),
};

export type ProviderConfig = z.infer<z.ZodObject<typeof providerConfigShape>>;

export function providerTimeoutsFrom(config: ProviderConfig): ProviderTimeouts {
  return {
    requestMs: config.PROVIDER_TIMEOUT_MS,
    streamIdleMs: config.PROVIDER_STREAM_IDLE_TIMEOUT_MS,
    connectMs: config.PROVIDER_CONNECT_TIMEOUT_MS,
  };
}
