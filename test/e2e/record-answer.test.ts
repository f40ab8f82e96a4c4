import './support/catalog';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ledgerKeys } from '@gateway/ledger/stores';
import { createRedis, type Redis } from '@gateway/lib/redis';
import { startRedisServer, type RedisServer } from '../support/redis-server';
import { eventually } from './support/eventually';
import { startE2e, type E2e } from './support/harness';
import { streamRaw } from './support/http';
import { committedTrace } from './support/ledger';

/**
 * `x-service-metered` is the ledger's answer, not edge's guess: a record the
 * ledger commits within its window (RECORD_DEADLINE_MS from receiving it)
 * is metered even when the answer comes back after that window, because
 * edge waits RECORD_ANSWER_GRACE_MS more for it.
 *
 * The answer is held up for real: with the suite's own Redis paused for
 * writes, the ledger's settlement script waits in Redis, so edge has sent
 * its Record; the edge process is then stopped (SIGSTOP) and Redis let go,
 * so the record is committed and answered while edge cannot read the
 * answer, as when its event loop is busy. Edge goes on only once the window
 * has passed since the ledger sent the script. (Stopping the ledger instead
 * would also hold its Redis reply past the ledger's own Redis command
 * timeout, docs/decisions.md#ledger-records-under-faults.)
 */
jest.setTimeout(240_000);

/**
 * The commit window: the pause and stop above must fit in it, and a CI machine running other
 * suites beside this one has stalled them past 3 s; each case waits it out once.
 */
const RECORD_DEADLINE_MS = 15_000;
/** Far longer than any hold-up here: the answer always comes back within it. */
const RECORD_ANSWER_GRACE_MS = 120_000;
/** The waits below are for steps of a few milliseconds that a loaded machine can stretch. */
const STEP_TIMEOUT_MS = 60_000;

const USAGE = { prompt_tokens: 12, completion_tokens: 6, total_tokens: 18 };

/** An OpenAI-compatible upstream that answers each call only once the test lets it. */
interface GatedUpstream {
  baseUrl: string;
  /** Resolves when edge's next call reaches the upstream: by then edge has reserved the call's cost. */
  arrived(): Promise<void>;
  /** Answers the call that arrived. */
  release(): void;
  close(): Promise<void>;
}

function answer(res: ServerResponse, body: { model?: string; stream?: boolean }): void {
  const common = { id: 'chatcmpl-record-answer', created: Math.floor(Date.now() / 1000), model: body.model ?? 'unknown' };
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ...common, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'A tower with a light.' }, finish_reason: 'stop' }], usage: USAGE }));
    return;
  }
  const chunk = (fields: Record<string, unknown>) => `data: ${JSON.stringify({ ...common, object: 'chat.completion.chunk', ...fields })}\n\n`;
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: 'A tower with a light.' }, finish_reason: null }] }));
  res.write(chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
  res.write(chunk({ choices: [], usage: USAGE }));
  res.end('data: [DONE]\n\n');
}

async function startGatedUpstream(): Promise<GatedUpstream> {
  let onArrival: (() => void) | undefined;
  let pending: (() => void) | undefined;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const pieces: Buffer[] = [];
    req.on('data', (piece: Buffer) => pieces.push(piece));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(pieces).toString('utf8')) as { model?: string; stream?: boolean };
      pending = () => answer(res, body);
      onArrival?.();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    arrived: () =>
      new Promise((resolve) => {
        onArrival = resolve;
      }),
    release: () => {
      const respond = pending;
      pending = undefined;
      respond?.();
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let redisServer: RedisServer;
let redis: Redis;
let upstream: GatedUpstream;
let e2e: E2e;

beforeAll(async () => {
  redisServer = await startRedisServer({ persistence: 'aof' });
  redis = createRedis(redisServer.url);
  upstream = await startGatedUpstream();
  e2e = await startE2e('e2e_record_answer', {
    redisUrl: redisServer.url,
    serviceEnv: {
      edge: { UPSTREAM_BASE_URL: upstream.baseUrl, RECORD_DEADLINE_MS: String(RECORD_DEADLINE_MS), RECORD_ANSWER_GRACE_MS: String(RECORD_ANSWER_GRACE_MS) },
    },
  });
});

afterAll(async () => {
  await e2e?.close();
  await upstream?.close();
  redis?.disconnect();
  await redisServer?.stop();
});

/** When a client of Redis waits, paused, with a script (the ledger's settlement): the instant it was seen. */
async function settlementPaused(): Promise<number> {
  return eventually(
    async () => {
      const clients = (await redis.call('CLIENT', 'LIST')) as string;
      return clients.split('\n').some((line) => /\bflags=\w*b/.test(line) && /\bcmd=eval(sha)?\b/.test(line)) ? Date.now() : undefined;
    },
    'the settlement script waiting in the paused Redis',
    STEP_TIMEOUT_MS,
    5,
  );
}

/** Whether the ledger's record stream holds a record of the organization: the record is committed. */
async function committedInStream(organizationId: string): Promise<true | undefined> {
  const entries = (await redis.xrange(ledgerKeys(e2e.stack.ledgerKeyPrefix).stream, '-', '+')) as Array<[string, string[]]>;
  return entries.some(([, fields]) => fields.some((field) => field.includes(organizationId))) || undefined;
}

interface Outcome {
  metered: string | null;
  requestId: string;
}

async function ask(key: string, stream: boolean): Promise<Outcome> {
  const body = { model: 'auto', messages: [{ role: 'user', content: 'What is a lighthouse?' }], ...(stream ? { stream: true } : {}) };
  const headers = { authorization: `Bearer ${key}` };
  if (stream) {
    const streamed = await streamRaw(`${e2e.gatewayUrl}/chat/completions`, body, headers);
    const last = streamed.events.at(-1) as { x_service?: { metered?: boolean } } | undefined;
    // The trailer and the final chunk must say the same.
    expect(String(last?.x_service?.metered)).toBe(streamed.trailers.get('x-service-metered'));
    return { metered: streamed.trailers.get('x-service-metered'), requestId: streamed.headers.get('x-service-request-id') ?? '' };
  }
  const response = await fetch(`${e2e.gatewayUrl}/chat/completions`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  return { metered: response.headers.get('x-service-metered'), requestId: response.headers.get('x-service-request-id') ?? '' };
}

describe('a record committed in time whose answer comes back late', () => {
  it.each([
    ['a JSON answer', false],
    ['a streamed answer', true],
  ])('is metered in %s, and is in Postgres', async (_, stream) => {
    const caller = await e2e.seed({ plan: 'simulated' });
    const edge = e2e.stack.services.edge;
    const arrived = upstream.arrived();
    const outcome = ask(caller.key, stream);
    // Noticed early if the call fails before reaching the upstream.
    await Promise.race([arrived, outcome]);
    await redis.call('CLIENT', 'PAUSE', String(STEP_TIMEOUT_MS * 2), 'WRITE');
    let stopped = false;
    try {
      upstream.release();
      const scriptSentBy = await settlementPaused();
      process.kill(edge.pid, 'SIGSTOP');
      stopped = true;
      await redis.call('CLIENT', 'UNPAUSE');
      await eventually(() => committedInStream(caller.organizationId), 'the record in the stream', STEP_TIMEOUT_MS, 10);
      // Edge sent its Record before the script was seen, so by then RECORD_DEADLINE_MS has passed for that call.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, scriptSentBy + RECORD_DEADLINE_MS - Date.now())));
    } finally {
      if (stopped) process.kill(edge.pid, 'SIGCONT');
      await redis.call('CLIENT', 'UNPAUSE');
    }
    const { metered, requestId } = await outcome;
    expect(metered).toBe('true');
    expect(await committedTrace(e2e.ledger.db, requestId)).toMatchObject({ organization_id: caller.organizationId, http_status: 200, stream });
  });
});
