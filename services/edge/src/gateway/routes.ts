import type { Express } from 'express';
import { requestIdOf } from '../http/locals';
import type { PlainErrorHandler, PlainHandler } from '../http/plain';
import { chatCompletionsEndpoint, gatewayPipeline } from './chat';
import type { GatewayDeps } from './deps';
import { gatewayHeaders, writeGatewayHeaders } from './headers';
import { listModels, retrieveModel } from './models';
import { responsesEndpoint } from './responses/endpoint';

/** The OpenAI-compatible surface: point the `openai` client's baseURL at `{base_url}/api/gateway/v1`. */
export const GATEWAY_BASE_PATH = '/api/gateway/v1';

/**
 * Mounted on the gateway path after its routes: an error answered before a gateway handler wrote
 * the header set (a body refused by the parser, a rejected credential, an unknown route) still
 * carries the whole set, empty but for the request id. Written here, only for such an answer,
 * rather than on every request before its body is read and again at its answer.
 */
export const gatewayErrorHeaders: PlainErrorHandler = (error, _req, res, next) => {
  // Every set the handlers write holds `x-service-model` (routeHeaders), even when it is empty.
  if (!res.headersSent && !res.hasHeader('x-service-model')) writeGatewayHeaders(res, gatewayHeaders({ requestId: requestIdOf(res) }));
  next(error);
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
