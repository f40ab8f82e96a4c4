import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { z } from 'zod';

const exportSchema = z.object({ resourceSpans: z.array(z.object({ scopeSpans: z.array(z.object({ spans: z.array(z.unknown()) })) })) });
const EXPORT_SPANS = join(__dirname, '..', 'test', 'support', 'export-spans.ts');

async function spansIn(request: IncomingMessage): Promise<number> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const { resourceSpans } = exportSchema.parse(JSON.parse(Buffer.concat(chunks).toString('utf8')));
  return resourceSpans.flatMap(({ scopeSpans }) => scopeSpans).reduce((total, { spans }) => total + spans.length, 0);
}

/** The spans of each export, largest first, that a process started with `env` sends for `spans` spans ended at once, until it exits. */
async function exports(spans: number, env: Record<string, string>): Promise<number[]> {
  const receiver = createServer();
  const received: Array<Promise<number>> = [];
  receiver.on('request', (request: IncomingMessage, response) => {
    received.push(spansIn(request));
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  const child = spawn(process.execPath, ['--import', 'tsx', EXPORT_SPANS, String(spans)], {
    env: {
      PATH: process.env.PATH ?? '',
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`,
      // Nothing is sent on a schedule within the test: a batch leaves when it is full, the rest at shutdown.
      OTEL_BSP_SCHEDULE_DELAY: '600000',
      ...env,
    },
    stdio: 'ignore',
  });
  try {
    const [code] = (await once(child, 'exit')) as [number | null];
    if (code !== 0) throw new Error(`the span process exited with ${String(code)}`);
    return (await Promise.all(received)).sort((a, b) => b - a);
  } finally {
    receiver.close();
  }
}

/**
 * Where traces are exported, they leave in batches of 64 spans: a batch is
 * serialized on the event loop, and the SDK's 512 held it long enough to be
 * the stack's p99.
 */
describe('trace export', () => {
  it('sends spans in batches of 64', async () => {
    await expect(exports(100, {})).resolves.toEqual([64, 36]);
  });

  it('takes the batch size from OTEL_BSP_MAX_EXPORT_BATCH_SIZE when it is set', async () => {
    await expect(exports(20, { OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '8' })).resolves.toEqual([8, 8, 4]);
  });
});
