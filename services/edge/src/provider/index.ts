export {
  createProviderClient,
  DEFAULT_PROVIDER_TIMEOUTS,
  type CompletionResult,
  type ProviderClient,
  type ProviderClientOptions,
  type ProviderRequest,
  type ProviderStream,
  type ProviderTimeouts,
  type StreamEvent,
} from './client';
export { retryAfterSeconds, type KeyMode } from './errors';
export { baseUrlVariable, resolveUpstreams, UPSTREAM_BASE_URL, type Upstream } from './upstreams';
export type { TokenUsage } from './usage';
export { providerConfigShape, providerTimeoutsFrom, type ProviderConfig } from './config';
