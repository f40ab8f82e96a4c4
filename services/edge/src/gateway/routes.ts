import type { Express } from 'express';
import { requestIdOf } from '../http/locals';
import type { PlainHandler } from '../http/plain';
import { chatCompletionsEndpoint, gatewayPipeline } from './chat';
import type { GatewayDeps } from './deps';
import { gatewayHeaders, writeGatewayHeaders } from './headers';
import { listModels, retrieveModel } from './models';
import { responsesEndpoint } from './responses/endpoint';

/** The OpenAI-compatible surface: point the `openai` client's baseURL at `{base_url}/api/gateway/v1`. */
export const GATEWAY_BASE_PATH = '/api/gateway/v1';

/**
 * Mounted on the gateway path before the body parser: a body refused there
 * (not JSON, too large) never reaches a gateway handler, and its answer
 * must still carry the whole header set.
 */
export const presetGatewayHeaders: PlainHandler = (_req, res, next) => {
  writeGatewayHeaders(res, gatewayHeaders({ requestId: requestIdOf(res) }));
  next();
};

export const CHAT_COMPLETIONS_PATH = `${GATEWAY_BASE_PATH}/chat/completions`;

/** The chat completions route's handlers: its template, for the request log as express's route would, then the pipeline. */
export function chatCompletions(deps: GatewayDeps): PlainHandler[] {
  const matched: PlainHandler = (req, _res, next) => {
    req.route = { path: CHAT_COMPLETIONS_PATH };
    next();
  };
  return [matched, gatewayPipeline(deps, chatCompletionsEndpoint)];
}

export function registerGatewayRoutes(app: Express, deps: GatewayDeps): void {
  app.post(CHAT_COMPLETIONS_PATH, gatewayPipeline(deps, chatCompletionsEndpoint));
  app.post(`${GATEWAY_BASE_PATH}/responses`, gatewayPipeline(deps, responsesEndpoint));
  app.get(`${GATEWAY_BASE_PATH}/models`, listModels(deps));
  app.get(`${GATEWAY_BASE_PATH}/models/:id`, retrieveModel(deps));
}
