import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeHttpServer } from '@gateway/lib/http-server';
import { pathOf, traceRequests } from '@gateway/lib/http-spans';
import express, { type Express } from 'express';
import { registerAgentRoutes } from './agent/routes';
import { registerOrganizationAgentRoutes } from './console/agents';
import { registerKeyRoutes } from './console/keys';
import { registerQuotaRoutes } from './console/quota';
import { registerConsoleRoutes } from './console/static';
import type { EdgeDeps } from './deps';
import { CHAT_COMPLETIONS_PATH, chatCompletions, GATEWAY_BASE_PATH, gatewayErrorHeaders, registerGatewayRoutes } from './gateway/routes';
import { registerHealthRoutes } from './health/routes';
import { jsonBody } from './http/body';
import { COOKIE_AUTHENTICATED_PATHS, refuseCrossSiteRequests } from './http/csrf';
import { renderErrors, renderPlainErrors, unknownRoute } from './http/errors';
import { plainChain, type PlainHandler } from './http/plain';
import { assignRequestId } from './http/request-id';
import { logRequests } from './http/request-log';
import { registerIdentityRoutes } from './identity/routes';
import { registerOpenApiRoute } from './openapi/routes';
import { registerUsageRoutes } from './usage/routes';

export type { EdgeDeps } from './deps';

export interface EdgeApp {
  app: Express;
  /** Listens and resolves with the bound port (useful with port 0); idle connections stay open keepAliveTimeoutMs. */
  start(listen: { host: string; port: number; keepAliveTimeoutMs: number }): Promise<number>;
  /** Stops accepting connections and waits for in-flight requests and streams, cutting them after graceMs. */
  stop(graceMs?: number): Promise<void>;
}

/** How long stop() waits for requests in flight unless told: the longest agent chat (AGENT_CHAT_DEADLINE_MS's default). */
const DEFAULT_STOP_GRACE_MS = 180_000;

/** API responses hold sessions, keys and account data: never cached, never sniffed. */
const apiResponseHeaders: PlainHandler = (_req, res, next) => {
  res.setHeader('cache-control', 'no-store');
  res.setHeader('x-content-type-options', 'nosniff');
  next();
};

/** The HTTP app, wired from its dependencies so the embedded mode can reuse it. */
export function createEdgeApp(deps: EdgeDeps): EdgeApp {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('trust proxy', deps.settings.trustProxy);

  const everyRequest = [assignRequestId, logRequests(deps.logger), apiResponseHeaders];
  const body = jsonBody(deps.settings.bodyLimitBytes);
  const gatewayDeps = { ...deps.gateway, auth: deps.auth, logger: deps.logger };
  app.use(...everyRequest);
  app.use(COOKIE_AUTHENTICATED_PATHS, refuseCrossSiteRequests);
  app.use(...body);
  // The hot path first: express tries each route in turn until one matches.
  registerGatewayRoutes(app, gatewayDeps);
  registerHealthRoutes(app, deps);
  registerOpenApiRoute(app);
  registerIdentityRoutes(app, deps);
  registerKeyRoutes(app, deps);
  registerOrganizationAgentRoutes(app, deps);
  registerQuotaRoutes(app, deps);
  registerAgentRoutes(app, deps);
  registerUsageRoutes(app, deps);
  registerConsoleRoutes(app, deps.settings.consoleDir);
  app.use(unknownRoute);
  app.use(GATEWAY_BASE_PATH, gatewayErrorHeaders);
  app.use(renderErrors(deps.logger));

  // The hot path's exact route skips express: the same handlers, in the order the app runs them for it (docs/decisions.md, "The gateway's plain lane").
  const chatLane = plainChain([...everyRequest, ...body, ...chatCompletions(gatewayDeps), gatewayErrorHeaders, renderPlainErrors(deps.logger)]);
  const listener = (req: IncomingMessage, res: ServerResponse) => (req.method === 'POST' && pathOf(req.url) === CHAT_COMPLETIONS_PATH ? chatLane(req, res) : app(req, res));

  let server: Server | undefined;
  return {
    app,
    start: ({ host, port, keepAliveTimeoutMs }) =>
      new Promise((resolve, reject) => {
        const listening = createServer({ keepAliveTimeout: keepAliveTimeoutMs }, traceRequests(listener));
        listening.once('error', reject);
        listening.listen(port, host, () => {
          listening.off('error', reject);
          server = listening;
          resolve((listening.address() as AddressInfo).port);
        });
      }),
    stop: async (graceMs = DEFAULT_STOP_GRACE_MS) => {
      if (server) await closeHttpServer(server, graceMs);
    },
  };
}
