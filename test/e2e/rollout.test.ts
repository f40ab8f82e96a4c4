import './support/catalog';
import { createPromiseClient } from '@gateway/lib/grpc';
import { RouterServiceService } from '@gateway/proto/gen/gateway/router/v1/router';
import OpenAI from 'openai';
import { scrape, total } from '../support/prometheus';
import type { ServiceProcess } from '../support/processes';
import { startBalancer, type Balancer } from './support/balancer';
import { eventually } from './support/eventually';
import { startE2e, type Caller, type E2e } from './support/harness';

/**
 * Rollouts that drop nothing, on the compiled services (what the images
 * run). A process that gets SIGTERM reports not ready at once, keeps
 * serving while the balancers catch up, then stops accepting and lets its
 * requests and streams finish. Two edge replicas behind a balancer that
 * follows /readyz (standing in for the endpoints controller) serve steady
 * traffic while one of them is stopped mid-stream; then the same for the
 * router, two replicas that its callers reach round robin (as over a headless
 * Service's pods), while edge routes with the policy it holds. Not one
 * request fails and every stream ends whole.
 */
jest.setTimeout(240_000);

/** Long enough that the balancer, polling every few ms, sees /readyz fail while edge still serves. */
const EDGE_DRAIN_DELAY_MS = 5_000;
/** Streams that last a few seconds, so that they are in flight when the signal comes. */
const STREAM_CHUNK_DELAY_MS = 150;
const LOAD_WORKERS = 4;
/** A bound on the steady traffic, whatever happens. */
const MAX_LOAD_REQUESTS = 5_000;
/** Requests the survivors must answer after the stopped process exits. */
const REQUESTS_AFTER_EXIT = 20;

let e2e: E2e;
let caller: Caller;

beforeAll(async () => {
  e2e = await startE2e('e2e_rollout', {
    compiled: true,
    replicas: { router: 2 },
    serviceEnv: { edge: { DRAIN_DELAY_MS: String(EDGE_DRAIN_DELAY_MS) }, simulator: { STREAM_CHUNK_DELAY_MS: String(STREAM_CHUNK_DELAY_MS) } },
  });
  caller = await e2e.seed({ plan: 'simulated' });
});

afterAll(async () => {
  await e2e?.close();
});

const clients = new Map<string, OpenAI>();
function clientFor(baseUrl: string): OpenAI {
  let client = clients.get(baseUrl);
  if (!client) {
    client = new OpenAI({ apiKey: caller.key, baseURL: `${baseUrl}/api/gateway/v1`, maxRetries: 0, timeout: 60_000 });
    clients.set(baseUrl, client);
  }
  return client;
}

const baseUrlOf = (service: ServiceProcess) => `http://127.0.0.1:${service.port}`;

/** Steady chat completions from a few workers until stopped; every failure is kept. */
function startLoad(pick: () => string) {
  let stopped = false;
  let sent = 0;
  let succeeded = 0;
  const failures: string[] = [];
  const servedBy = new Map<string, number>();
  const worker = async (index: number) => {
    while (!stopped && sent < MAX_LOAD_REQUESTS) {
      sent += 1;
      let baseUrl = '';
      try {
        baseUrl = pick();
        await clientFor(baseUrl).chat.completions.create({ model: 'auto', messages: [{ role: 'user', content: `Steady traffic ${index}.` }] });
        succeeded += 1;
        servedBy.set(baseUrl, (servedBy.get(baseUrl) ?? 0) + 1);
      } catch (error) {
        failures.push(`${baseUrl}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  };
  const workers = Array.from({ length: LOAD_WORKERS }, (_, index) => worker(index));
  return {
    succeeded: () => succeeded,
    failures: () => [...failures],
    servedBy: () => new Map(servedBy),
    stop: async () => {
      stopped = true;
      await Promise.all(workers);
    },
  };
}

interface StreamOutcome {
  content: string;
  finishReason: string | null;
  error?: string;
}

/** A streamed completion to one replica; `started` resolves at its first chunk. */
function openStream(baseUrl: string, label: string) {
  let markStarted: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const outcome = (async (): Promise<StreamOutcome> => {
    let content = '';
    let finishReason: string | null = null;
    try {
      const stream = await clientFor(baseUrl).chat.completions.create({
        model: 'auto',
        stream: true,
        messages: [{ role: 'user', content: `Tell me a long story, ${label}.` }],
      });
      for await (const chunk of stream) {
        markStarted();
        content += chunk.choices[0]?.delta.content ?? '';
        finishReason = chunk.choices[0]?.finish_reason ?? finishReason;
      }
      return { content, finishReason };
    } catch (error) {
      markStarted();
      return { content, finishReason, error: error instanceof Error ? error.message : String(error) };
    }
  })();
  return { started, outcome };
}

/** The `msg` of each JSON line of a process's log, in order, with its request id if it has one. */
function logEvents(service: ServiceProcess): Array<{ msg: string; requestId?: string }> {
  return service
    .logs()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg: string; request_id?: string })
    .map(({ msg, request_id }) => ({ msg, ...(request_id ? { requestId: request_id } : {}) }));
}

async function routeCalls(router: ServiceProcess): Promise<number> {
  const { samples } = await scrape(router.metricsPort);
  return total(samples, 'rpc_server_duration_count', { rpc_method: 'Route' });
}

describe('a rolling update of edge', () => {
  let balancer: Balancer | undefined;
  afterAll(async () => {
    await balancer?.close();
  });

  it('drops no request and cuts no stream when one of two replicas is stopped mid-stream', async () => {
    const stopping = e2e.stack.services.edge;
    const staying = await e2e.stack.startReplica('edge');
    const [stoppingUrl, stayingUrl] = [baseUrlOf(stopping), baseUrlOf(staying)];
    balancer = startBalancer([stoppingUrl, stayingUrl]);
    await eventually(async () => (balancer?.ready().length === 2 ? true : undefined), 'both edge replicas ready');

    const load = startLoad(() => balancer?.next() ?? '');
    await eventually(async () => ((load.servedBy().get(stoppingUrl) ?? 0) > 5 && (load.servedBy().get(stayingUrl) ?? 0) > 5 ? true : undefined), 'traffic on both replicas');
    const streams = [1, 2, 3].map((n) => openStream(stoppingUrl, `stream ${n}`));
    await Promise.all(streams.map(({ started }) => started));

    // SIGTERM mid-stream.
    const exited = stopping.stop();
    await eventually(async () => ((await fetch(`${stoppingUrl}/readyz`)).status === 503 ? true : undefined), 'the stopping replica to report not ready', 15_000, 10);
    // Not ready, and still serving: a request sent straight to it now is answered.
    const { response } = await clientFor(stoppingUrl).chat.completions.create({ model: 'auto', messages: [{ role: 'user', content: 'Still there?' }] }).withResponse();
    expect(response.status).toBe(200);
    const lateRequestId = response.headers.get('x-service-request-id') ?? '';

    expect(await exited).toBe(0);
    const afterExit = load.succeeded();
    await eventually(async () => (load.succeeded() >= afterExit + REQUESTS_AFTER_EXIT ? true : undefined), 'traffic after the replica exited');
    await load.stop();

    expect(load.failures()).toEqual([]);
    const outcomes = await Promise.all(streams.map(({ outcome }) => outcome));
    for (const outcome of outcomes) {
      expect(outcome.error).toBeUndefined();
      expect(outcome.finishReason).toBe('stop');
      expect(outcome.content.length).toBeGreaterThan(0);
    }
    // The drain in order: not ready, then the late request served, then no new connections, then done.
    const events = logEvents(stopping);
    const at = (predicate: (event: { msg: string; requestId?: string }) => boolean) => events.findIndex(predicate);
    const draining = at(({ msg }) => msg === 'draining');
    const late = at(({ msg, requestId }) => msg === 'request' && requestId === lateRequestId);
    const closing = at(({ msg }) => msg === 'stopped accepting; finishing in-flight work');
    const drained = at(({ msg }) => msg === 'drained');
    expect(draining).toBeGreaterThanOrEqual(0);
    expect([draining < late, late < closing, closing < drained]).toEqual([true, true, true]);
  });
});

describe('a rolling update of a gRPC backend (the router)', () => {
  it("spreads Route calls over both replicas and drops none when one is stopped, while edge's traffic, routed with the policy it holds, drops none either", async () => {
    const [stopping, staying] = e2e.stack.replicasOf('router');
    if (!stopping || !staying) throw new Error('the stack runs two router replicas');
    // The edge replica the first test stopped is gone; the one it started stays.
    const edge = e2e.stack.processes().find((service) => service.name === 'edge' && service !== e2e.stack.services.edge) ?? e2e.stack.services.edge;
    // A caller of Route, reaching the replicas as edge's client does (one target naming both).
    const router = createPromiseClient(RouterServiceService, { serviceName: 'router', address: `ipv4:${stopping.address},${staying.address}`, deadlineMs: 5000 });
    const routeFailures: string[] = [];
    let routing = true;
    let routed = 0;
    const routeLoad = (async () => {
      while (routing && routed < MAX_LOAD_REQUESTS) {
        routed += 1;
        await router
          .route({ requestedModel: 'auto', credentialModel: 'auto', planTier: 'simulated', messages: [{ role: 'user', content: 'hi' }], toolCount: 0, maxOutputTokens: 0, parameters: [] })
          .catch((error: unknown) => routeFailures.push(error instanceof Error ? error.message : String(error)));
      }
    })();
    try {
      const before = [await routeCalls(stopping), await routeCalls(staying)];
      const load = startLoad(() => baseUrlOf(edge));
      await eventually(
        async () => ((await routeCalls(stopping)) >= (before[0] ?? 0) + 10 && (await routeCalls(staying)) >= (before[1] ?? 0) + 10 ? true : undefined),
        'Route calls on both router replicas',
      );

      expect(await stopping.stop()).toBe(0);
      const afterExit = load.succeeded();
      await eventually(async () => (load.succeeded() >= afterExit + REQUESTS_AFTER_EXIT ? true : undefined), 'traffic after the router replica exited');
      await load.stop();

      expect(load.failures()).toEqual([]);
      expect(logEvents(stopping).map(({ msg }) => msg)).toContain('drained');
    } finally {
      routing = false;
      await routeLoad;
      router.close();
    }
    expect(routeFailures).toEqual([]);
  });
});
