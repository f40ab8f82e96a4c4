import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadCatalog, type Catalog } from '@gateway/lib/catalog';
import { closeHttpServer } from '@gateway/lib/http-server';
import { traceRequests } from '@gateway/lib/http-spans';
import { createLogger, type Logger } from '@gateway/lib/logging';
import { handleChatCompletion, type ChatContext } from './chat/handler';
import { sendError, sendJson } from './http/respond';
import { modelList } from './models';
import { StatsRecorder, type SimulatorStats } from './stats';

/**
 * The model-provider simulator: an OpenAI-compatible HTTP server on node:http
 * (no framework: it is the upstream the gateway's added latency is measured
 * against, so it must cost little). Used by main.ts as its own process, and
 * in-process by the embedded mode and tests.
 */
export interface SimulatorOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  latencyMs?: number;
  latencyJitterMs?: number;
  /** Fraction (0..1) of chat requests answered with a 500. */
  failureRate?: number;
  streamChunkDelayMs?: number;
  bodyLimitBytes?: number;
  catalog?: Catalog;
  logger?: Logger;
  /** Source of randomness for jitter and FAILURE_RATE. */
  random?: () => number;
}

export interface Simulator {
  port: number;
  /** The OpenAI-style base URL, e.g. http://127.0.0.1:8090/v1. */
  baseUrl: string;
  stats(): SimulatorStats;
  /** Stops accepting, ends held requests, and lets answers in flight finish (cut after graceMs). */
  close(graceMs?: number): Promise<void>;
}

/** Keep idle connections longer than clients do, so the client side always closes first. */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;
const DEFAULT_BODY_LIMIT_BYTES = 32 * 1024 * 1024;
/** The longest answer close() waits for unless told. */
const DEFAULT_CLOSE_GRACE_MS = 60_000;

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const host = options.host ?? '127.0.0.1';
  const catalog = options.catalog ?? loadCatalog();
  const logger = options.logger ?? createLogger({ service: 'simulator', level: 'silent' });
  const stats = new StatsRecorder();
  const models = modelList(catalog);
  const chat: ChatContext = {
    catalog,
    stats,
    injection: {
      latencyMs: options.latencyMs ?? 0,
      latencyJitterMs: options.latencyJitterMs ?? 0,
      failureRate: options.failureRate ?? 0,
      random: options.random ?? Math.random,
    },
    streamChunkDelayMs: options.streamChunkDelayMs ?? 0,
    bodyLimitBytes: options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES,
    logger,
    held: new Set(),
  };

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    if (req.method === 'POST' && path === '/v1/chat/completions') return handleChatCompletion(req, res, chat);
    req.resume();
    if (req.method === 'GET' && path === '/v1/models') return sendJson(res, 200, models);
    if (req.method === 'GET' && path === '/healthz') return sendJson(res, 200, { status: 'ok' });
    if (req.method === 'GET' && path === '/simulator/stats') return sendJson(res, 200, stats.snapshot());
    sendError(res, 404, `Unknown request URL: ${req.method ?? ''} ${path}.`, { code: 'unknown_url' });
  };

  const server = createServer(
    traceRequests((req, res) => {
      stats.request();
      res.once('finish', () => stats.status(res.statusCode));
      route(req, res).catch((error: unknown) => {
        logger.error({ err: error }, 'simulator request failed');
        if (!res.headersSent) sendError(res, 500, 'The simulator failed unexpectedly.');
        else res.destroy();
      });
    }),
  );
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1000;
  server.on('connection', (socket) => {
    stats.connectionOpened();
    socket.once('close', () => stats.connectionClosed());
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    port,
    baseUrl: `http://${host}:${port}/v1`,
    stats: () => stats.snapshot(),
    close: (graceMs = DEFAULT_CLOSE_GRACE_MS) => {
      for (const res of chat.held) res.destroy();
      return closeHttpServer(server, graceMs);
    },
  };
}
