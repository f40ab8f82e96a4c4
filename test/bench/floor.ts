/**
 * `npm run bench:floor`: what the parts the hot path is built from cost on
 * this machine, with none of our code in them. One round trip each, from
 * this process to another: a bare grpc-js unary call (bytes echoed by a
 * server process of its own, no protobuf, no telemetry), a one-row prepared
 * Postgres query and a Redis GET. Back to back, then paced at the rates the
 * gateway's targets name (50, 200 and 1,000/s): on a VM whose idle vCPUs
 * halt, the same round trip costs more the longer each side sleeps between
 * calls. With the CPU each side spends. For comparison, the last row is one
 * of the gateway's own hops measured the same way: the router's Route, a real
 * router process called through lib's client (protobuf, telemetry, metrics,
 * validation, scoring). docs/performance.md sets the gateway's targets
 * against these. Prints a table; asserts no time.
 *
 * Options: --calls N (back-to-back calls per part, default 3,000),
 * --seconds N (each paced run, default 5), --rates 50,200,1000.
 */
import { parseArgs } from 'node:util';
import { Metadata, credentials, makeGenericClientConstructor, type CallOptions } from '@grpc/grpc-js';
import { Pool } from 'pg';
import { z } from 'zod';
import { createPromiseClient } from '@gateway/lib/grpc';
import { createRedis } from '@gateway/lib/redis';
import { RouterServiceService } from '@gateway/proto/gen/gateway/router/v1/router';
import { startService } from '../support/processes';
import { processCpuMs } from './support/cpu';
import { ECHO_SERVICE } from './support/echo-service';
import { prepareBenchEnvironment } from './support/environment';
import { startHelperProcess } from './support/helper-process';
import { ratesOption } from './support/options';
import { runPaced } from './support/load';
import { machineLine, ms, summarize } from './support/stats';

const { values } = parseArgs({ options: { calls: { type: 'string' }, seconds: { type: 'string' }, rates: { type: 'string' } } });
const calls = z.coerce.number().int().min(100).default(3000).parse(values.calls);
const seconds = z.coerce.number().positive().default(5).parse(values.seconds);
const rates = ratesOption(values.rates, [50, 200, 1000]);
const WARM_UP_CALLS = 2000;

/** What edge asks the router for one short chat turn. */
const ROUTE_REQUEST = {
  requestedModel: 'auto',
  credentialModel: 'auto',
  planTier: 'pro',
  messages: [{ role: 'user', content: 'Hello! Can you tell me what a gateway is, in one sentence?' }],
  toolCount: 0,
  maxOutputTokens: 0,
  parameters: ['model', 'messages'],
};

async function measure(part: string, call: () => Promise<unknown>, serverPid?: number) {
  for (let index = 0; index < WARM_UP_CALLS; index += 1) await call();
  const timings: number[] = [];
  const cpu = cpuMeter(serverPid);
  for (let index = 0; index < calls; index += 1) {
    const started = performance.now();
    await call();
    timings.push(performance.now() - started);
  }
  const row: Record<string, string> = {
    'one round trip': part,
    'back to back p50 ms': ms(summarize(timings).p50),
    'CPU per call ms (client + server)': cpu.perCall(calls),
  };
  for (const rate of rates) {
    const pacedCpu = cpuMeter(serverPid);
    const paced = await runPaced({
      rate,
      durationMs: seconds * 1000,
      send: async () => {
        await call();
        return { ok: true };
      },
    });
    row[`${rate}/s p50 / p99 ms`] = `${ms(paced.latency.p50)} / ${ms(paced.latency.p99)}`;
    // Sparse calls cost more CPU each: between them both processes sleep, and each wake-up is paid again.
    row[`${rate}/s CPU ms`] = pacedCpu.perCall(paced.sent);
  }
  return row;
}

/** CPU this process and the server use from now on, per call, as `client + server`. */
function cpuMeter(serverPid: number | undefined) {
  const serverBefore = serverPid === undefined ? 0 : (processCpuMs(serverPid) ?? 0);
  const clientBefore = process.cpuUsage();
  return {
    perCall: (calls: number): string => {
      const client = process.cpuUsage(clientBefore);
      const clientMs = ((client.user + client.system) / 1000 / calls).toFixed(3);
      return serverPid === undefined ? clientMs : `${clientMs} + ${(((processCpuMs(serverPid) ?? 0) - serverBefore) / calls).toFixed(3)}`;
    },
  };
}

type EchoCall = (request: Buffer, metadata: Metadata, options: CallOptions, callback: (error: Error | null, response?: Buffer) => void) => void;

async function main(): Promise<void> {
  const infra = await prepareBenchEnvironment('floor');
  const echo = await startHelperProcess('test/bench/support/echo-server.ts');
  const EchoClient = makeGenericClientConstructor(ECHO_SERVICE, 'EchoService');
  const grpcClient = new EchoClient(`127.0.0.1:${echo.port}`, credentials.createInsecure(), { 'grpc.enable_retries': 0, 'grpc.enable_channelz': 0 });
  const invoke = (grpcClient as unknown as { echo: EchoCall }).echo.bind(grpcClient);
  const payload = Buffer.alloc(64, 'x');
  // A pool, as the services use: the paced run has several queries in flight. Each connection prepares the statement once.
  const postgres = new Pool({ connectionString: infra.databaseUrl, max: 8 });
  const redis = createRedis(infra.redisUrl);
  const router = await startService({ name: 'router', entry: 'services/router/src/main.ts', env: {} });
  const routerClient = createPromiseClient(RouterServiceService, { serviceName: 'router', address: router.address, deadlineMs: 1000 });
  try {
    const rows = [
      await measure(
        'bare grpc-js unary call',
        () => new Promise((resolve, reject) => invoke(payload, new Metadata(), { deadline: Date.now() + 1000 }, (error, response) => (error ? reject(error) : resolve(response)))),
        echo.pid,
      ),
      await measure('Postgres, prepared one-row query', () => postgres.query({ name: 'floor_probe', text: 'select $1::text as value', values: ['probe'] })),
      await measure('Redis GET', () => redis.get('bench-floor-probe')),
      await measure('for comparison: router Route (the gateway\'s own hop)', () => routerClient.route(ROUTE_REQUEST), router.pid),
    ];
    console.log('The parts of the hot path alone: one round trip from this process to another, none of the gateway\'s code in it;');
    console.log('the last row, for comparison, is one of the gateway\'s own hops measured the same way.');
    console.log(machineLine());
    console.table(rows);
  } finally {
    routerClient.close();
    await router.stop();
    grpcClient.close();
    await echo.stop();
    await postgres.end();
    redis.disconnect();
    await infra.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
