import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Catalog } from '@gateway/lib/catalog';
import type { Logger } from '@gateway/lib/logging';
import { planRequest, type Failure, type InjectionSettings } from '../failures';
import { BodyTooLarge, readBody, sendError, sendJson } from '../http/respond';
import { keyFingerprint, type StatsRecorder } from '../stats';
import { buildCompletion } from './completion';
import { checkToolChoice, InvalidRequest, lastUserMessage, messageText, parseChatRequest, rejectUnsupportedParams } from './request';
import { completionBody, streamFrames } from './wire';

export interface ChatContext {
  catalog: Catalog;
  stats: StatsRecorder;
  injection: InjectionSettings;
  streamChunkDelayMs: number;
  bodyLimitBytes: number;
  logger: Logger;
  /** Requests held open by the `timeout` failure, ended when the server closes. */
  held: Set<ServerResponse>;
}

const MISSING_KEY =
  "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).";

/** Any non-empty bearer value is accepted; only its fingerprint is kept. */
function bearerKey(header: string | undefined): string | undefined {
  if (header === undefined || !header.startsWith('Bearer ')) return undefined;
  const key = header.slice('Bearer '.length).trim();
  return key.length > 0 ? key : undefined;
}

/** Runs `send` after the injected latency, unless the client has gone by then. */
function afterLatency(res: ServerResponse, latencyMs: number, send: () => void): void {
  if (latencyMs <= 0) {
    send();
    return;
  }
  const timer = setTimeout(send, latencyMs);
  res.once('close', () => clearTimeout(timer));
}

function failureMessage(status: number, retryAfterSeconds: number): string {
  if (status === 429) return `Rate limit reached for requests (simulated). Please try again in ${retryAfterSeconds}s.`;
  if (status === 401) return 'Incorrect API key provided (simulated).';
  if (status >= 500) return 'The server had an error while processing your request (simulated).';
  return `Simulated failure with HTTP ${status}.`;
}

/** Sends the frames, paced by the chunk delay; `cutAfter` drops the connection after that many frames. */
function sendStream(res: ServerResponse, frames: string[], delayMs: number, cutAfter?: number): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  const last = cutAfter ?? frames.length;
  if (delayMs <= 0) {
    const body = frames.slice(0, last).join('');
    if (cutAfter === undefined) res.end(body);
    else res.write(body, () => res.socket?.destroy());
    return;
  }
  let next = 0;
  const writeNext = () => {
    if (res.destroyed) return;
    const frame = frames[next] as string;
    next += 1;
    if (next < last) {
      res.write(frame);
      setTimeout(writeNext, delayMs);
    } else if (cutAfter === undefined) res.end(frame);
    else res.write(frame, () => res.socket?.destroy());
  };
  writeNext();
}

/** Headers and half the body, then the connection drops: a provider dying mid-answer. */
function sendCutJson(res: ServerResponse, body: unknown): void {
  const payload = JSON.stringify(body);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
  res.write(payload.slice(0, Math.floor(payload.length / 2)), () => res.socket?.destroy());
}

function fail(res: ServerResponse, failure: Exclude<Failure, { kind: 'midstream' }>, context: ChatContext): void {
  switch (failure.kind) {
    case 'status': {
      const headers = failure.status === 429 ? { 'retry-after': String(failure.retryAfterSeconds) } : {};
      const code = failure.status === 429 ? 'rate_limit_exceeded' : failure.status === 401 ? 'invalid_api_key' : null;
      sendError(res, failure.status, failureMessage(failure.status, failure.retryAfterSeconds), { code, headers });
      return;
    }
    case 'timeout':
      context.held.add(res);
      res.once('close', () => context.held.delete(res));
      return;
    case 'reset':
      res.socket?.resetAndDestroy();
      return;
  }
}

export async function handleChatCompletion(req: IncomingMessage, res: ServerResponse, context: ChatContext): Promise<void> {
  const apiKey = bearerKey(req.headers.authorization);
  if (apiKey === undefined) {
    req.resume();
    sendError(res, 401, MISSING_KEY, { code: 'missing_api_key' });
    return;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(await readBody(req, context.bodyLimitBytes));
  } catch (error) {
    if (error instanceof BodyTooLarge) sendError(res, 413, `The request body is larger than ${context.bodyLimitBytes} bytes.`);
    else sendError(res, 400, 'We could not parse the JSON body of your request. Send a JSON object.', { code: 'invalid_json' });
    return;
  }
  try {
    const request = parseChatRequest(raw);
    context.stats.chatCompletion(request.model, apiKey);
    const lastUser = lastUserMessage(request);
    const plan = planRequest(req.headers, lastUser ? messageText(lastUser) : '', context.injection);
    rejectUnsupportedParams(request, context.catalog.models.get(request.model)?.unsupportedParams);
    checkToolChoice(request);
    const completion = buildCompletion(request);
    if (context.logger.isLevelEnabled('debug')) {
      context.logger.debug(
        { model: request.model, stream: request.stream === true, key_fingerprint: keyFingerprint(apiKey), failure: plan.failure?.kind },
        'chat completion',
      );
    }
    afterLatency(res, plan.latencyMs, () => {
      const { failure } = plan;
      if (failure && failure.kind !== 'midstream') return fail(res, failure, context);
      const cutShort = failure?.kind === 'midstream';
      if (request.stream === true) {
        const frames = streamFrames(completion, request.stream_options?.include_usage === true);
        sendStream(res, frames, context.streamChunkDelayMs, cutShort ? Math.ceil(frames.length / 2) : undefined);
      } else if (cutShort) {
        sendCutJson(res, completionBody(completion));
      } else {
        sendJson(res, 200, completionBody(completion));
      }
    });
  } catch (error) {
    if (!(error instanceof InvalidRequest)) throw error;
    sendError(res, 400, error.message, { param: error.param, code: error.code });
  }
}
