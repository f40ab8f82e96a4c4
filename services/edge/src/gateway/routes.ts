import type { Express } from 'express';
import { chatCompletions } from './chat';
import type { GatewayDeps } from './deps';
import { listModels } from './models';

/** The OpenAI-compatible surface: point the `openai` client's baseURL at `{base_url}/api/gateway/v1`. */
export const GATEWAY_BASE_PATH = '/api/gateway/v1';

export function registerGatewayRoutes(app: Express, deps: GatewayDeps): void {
  app.post(`${GATEWAY_BASE_PATH}/chat/completions`, chatCompletions(deps));
  app.get(`${GATEWAY_BASE_PATH}/models`, listModels(deps));
}
