import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionMessage } from 'openai/resources/chat/completions';
import { DomainError } from '@gateway/lib/errors';
import { parseUsd } from '@gateway/lib/money';

/**
 * The agent's way to a model: the gateway itself (edge's
 * `/api/gateway/v1/chat/completions`), through the official `openai`
 * client, authenticated with the legacy platform agent secret and the agent
 * record's id. The gateway meters, prices and records each call as
 * principal `agent_secret` attributed to that record, like any other traffic.
 */
export interface GatewayAnswer {
  message: ChatCompletionMessage;
  /** `x-service-request-id`. */
  requestId: string;
  /** `x-service-model`: the model that served the call. */
  model: string;
  /** `x-service-cost-usd` in micro-dollars; undefined when the call was unpriced. */
  costMicros: bigint | undefined;
}

export interface GatewayClient {
  complete(agentId: string, body: ChatCompletionCreateParamsNonStreaming): Promise<GatewayAnswer>;
  /** Whether edge's /readyz says it can serve. */
  isReady(): Promise<boolean>;
}

export interface GatewayClientOptions {
  /** Edge's base URL, e.g. http://edge (no trailing path). */
  baseUrl: string;
  /** The platform agent secret (`pas_...`). Never logged. */
  platformSecret: string;
  timeoutMs: number;
  /** Deadline of the /readyz probe. */
  probeTimeoutMs: number;
}

export const AGENT_ID_HEADER = 'X-Service-Agent-Id';
/** The client label on the gateway's traces (`X-Service-Client`). */
export const AGENT_CLIENT_LABEL = 'agent-service';

export function createGatewayClient({ baseUrl, platformSecret, timeoutMs, probeTimeoutMs }: GatewayClientOptions): GatewayClient {
  const root = baseUrl.replace(/\/+$/, '');
  const openai = new OpenAI({
    apiKey: platformSecret,
    baseURL: `${root}/api/gateway/v1`,
    timeout: timeoutMs,
    // A failed call is the user's to retry: a silent retry would bill twice.
    maxRetries: 0,
    defaultHeaders: { 'X-Service-Client': AGENT_CLIENT_LABEL },
  });
  return {
    complete: async (agentId, body) => {
      try {
        const { data, response } = await openai.chat.completions.create(body, { headers: { [AGENT_ID_HEADER]: agentId } }).withResponse();
        const choice = data.choices[0];
        if (!choice) throw new DomainError('provider', 'The model answered without a choice.');
        const cost = response.headers.get('x-service-cost-usd') ?? '';
        return {
          message: choice.message,
          requestId: response.headers.get('x-service-request-id') ?? '',
          model: response.headers.get('x-service-model') ?? data.model,
          costMicros: cost === '' ? undefined : parseUsd(cost),
        };
      } catch (error) {
        throw gatewayFailure(error);
      }
    },
    isReady: async () => {
      try {
        const response = await fetch(`${root}/readyz`, { signal: AbortSignal.timeout(probeTimeoutMs) });
        return response.ok;
      } catch {
        return false;
      }
    },
  };
}

/** The gateway's own error message, never the client library's (which prefixes the status). */
function gatewayMessage(error: APIError): string {
  const body = error.error as { message?: unknown } | undefined;
  return typeof body?.message === 'string' ? body.message : 'no message';
}

function retryAfterOf(error: APIError): { retryAfterSeconds?: number } {
  const value = Number(error.headers?.get('retry-after'));
  return Number.isFinite(value) && value > 0 ? { retryAfterSeconds: value } : {};
}

/** A failed gateway call as the agent's caller sees it: the gateway's class where it is the caller's business. */
export function gatewayFailure(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  if (error instanceof APIConnectionTimeoutError) {
    return new DomainError('timeout', 'The gateway did not answer in time.', { cause: error });
  }
  if (error instanceof APIConnectionError) {
    return new DomainError('unavailable', 'The gateway is unavailable.', { cause: error, internalReason: 'gateway connection failed' });
  }
  if (!(error instanceof APIError)) return new DomainError('internal', 'Internal error. Report it with the request id.', { cause: error });
  const requestId = error.headers?.get('x-service-request-id') ?? '';
  const reason = `gateway answered ${error.status} (request ${requestId}): ${gatewayMessage(error)}`;
  switch (error.status) {
    case 400:
      return new DomainError('validation', `The gateway refused the request: ${gatewayMessage(error)}`, { internalReason: reason });
    case 401:
    case 403:
      // The platform agent secret is the operator's, not the user's: a configuration problem.
      return new DomainError('unavailable', "The agent's gateway credential was refused; the operator must issue a new one.", {
        internalReason: reason,
      });
    case 402:
      return new DomainError('quota', gatewayMessage(error), { internalReason: reason, ...retryAfterOf(error) });
    case 429:
      return new DomainError('provider_rate_limit', gatewayMessage(error), { internalReason: reason, ...retryAfterOf(error) });
    case 502:
      return new DomainError('provider', gatewayMessage(error), { internalReason: reason });
    case 503:
      return new DomainError('unavailable', gatewayMessage(error), { internalReason: reason });
    case 504:
      return new DomainError('timeout', gatewayMessage(error), { internalReason: reason });
    default:
      return new DomainError('internal', 'Internal error. Report it with the request id.', { internalReason: reason });
  }
}
