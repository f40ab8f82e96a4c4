import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { freePort } from '@gateway/lib/net';
import { logDir } from '../../support/paths';
import { exited } from './helper-process';

/**
 * Portkey's open-source gateway (`@portkey-ai/gateway`, a devDependency), the
 * gateway `npm run bench:compare` measures ours against: its own Node
 * process, headless (no console UI), NODE_ENV=production, as its README runs
 * it (`npx @portkey-ai/gateway`). It keeps no configuration of its own: each
 * request names the provider and the upstream in Portkey's headers (see
 * `portkeyHeaders`), and it forwards the caller's Authorization to the upstream.
 */
export interface PortkeyGateway {
  pid: number;
  /** http://127.0.0.1:port */
  origin: string;
  logFile: string;
  stop(): Promise<void>;
}

const READY_ATTEMPTS = 600;
const READY_POLL_MS = 100;

/** Where the published package keeps its Node entry point (its `bin`). */
function entryPoint(): string {
  const manifest = createRequire(__filename).resolve('@portkey-ai/gateway/package.json');
  return join(dirname(manifest), 'build', 'start-server.js');
}

/** Headers that send one request through Portkey to an OpenAI-compatible upstream at `upstreamBaseUrl` (e.g. http://127.0.0.1:8090/v1). */
export function portkeyHeaders(upstreamBaseUrl: string): Record<string, string> {
  return { 'x-portkey-provider': 'openai', 'x-portkey-custom-host': upstreamBaseUrl };
}

export async function startPortkey(): Promise<PortkeyGateway> {
  // Portkey takes its port from --port only, and listens on every interface; the benchmark calls it on 127.0.0.1.
  const port = await freePort();
  const logFile = join(logDir(), `portkey-${port}.log`);
  const output = openSync(logFile, 'a');
  const child = spawn(process.execPath, [entryPoint(), `--port=${port}`, '--headless'], {
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production' },
    stdio: ['ignore', output, output],
  });
  closeSync(output);
  const origin = `http://127.0.0.1:${port}`;
  const stop = async () => {
    child.kill('SIGTERM');
    await exited(child);
  };
  // Ready when its root route answers ("AI Gateway says hey!").
  for (let attempt = 0; ; attempt += 1) {
    if (child.exitCode !== null) throw new Error(`Portkey's gateway exited with ${child.exitCode}; see ${logFile}`);
    const ready = await fetch(`${origin}/`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    if (attempt >= READY_ATTEMPTS) {
      await stop();
      throw new Error(`Portkey's gateway did not answer within ${(READY_ATTEMPTS * READY_POLL_MS) / 1000} s; see ${logFile}`);
    }
    await new Promise((resolve) => setTimeout(resolve, READY_POLL_MS));
  }
  return { pid: child.pid ?? -1, origin, logFile, stop };
}
