import { request as httpRequest, Agent } from 'node:http';
import { startSimulator, type Simulator } from '../src/server';

/** startSimulator as the embedded mode uses it: in-process, with its options instead of env. */
const started: Simulator[] = [];

afterAll(async () => {
  await Promise.all(started.map((simulator) => simulator.close()));
});

async function start(options: Parameters<typeof startSimulator>[0]): Promise<Simulator> {
  const simulator = await startSimulator({ port: 0, ...options });
  started.push(simulator);
  return simulator;
}

function ask(simulator: Simulator, init: RequestInit = {}): Promise<Response> {
  return fetch(`${simulator.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: 'Bearer sk-in-process', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'sim-small', messages: [{ role: 'user', content: 'hi' }] }),
    ...init,
  });
}

it('fails every chat request with FAILURE_RATE 1, and none with 0', async () => {
  const failing = await start({ failureRate: 1 });
  const response = await ask(failing);
  expect(response.status).toBe(500);
  expect(((await response.json()) as { error: { type: string } }).error.type).toBe('server_error');
  const healthy = await start({ failureRate: 0 });
  expect((await ask(healthy)).status).toBe(200);
});

it('adds the configured latency and jitter, drawing jitter from the given source', async () => {
  let draws = 0;
  const simulator = await start({ latencyMs: 5, latencyJitterMs: 10, random: () => (draws++, 0.5) });
  expect((await ask(simulator)).status).toBe(200);
  expect(draws).toBe(1);
});

it('counts connections, reusing one keep-alive connection for sequential requests', async () => {
  const simulator = await start({});
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const get = () =>
    new Promise<number>((resolve, reject) => {
      const request = httpRequest(`${simulator.baseUrl.replace('/v1', '')}/healthz`, { agent }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      });
      request.on('error', reject);
      request.end();
    });
  for (let index = 0; index < 5; index += 1) expect(await get()).toBe(200);
  expect(simulator.stats().connections.opened).toBe(1);
  expect(simulator.stats().requests.total).toBe(5);
  agent.destroy();
});

it('closes while a request is held open by the timeout failure', async () => {
  const simulator = await startSimulator({ port: 0 });
  const held = ask(simulator, { headers: { authorization: 'Bearer sk-in-process', 'x-simulator-fail': 'timeout' } });
  // The held request has reached the simulator once its model is counted.
  while (simulator.stats().requests.chatCompletions === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  await simulator.close();
  await expect(held).rejects.toThrow();
});
