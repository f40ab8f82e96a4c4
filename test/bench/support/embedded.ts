import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../../support/paths';
import { startService } from '../../support/processes';

/** The Node options `npm start` gives the embedded mode (its `node ... --import tsx <entry>` script), so the benchmark runs it as started. */
function startScriptNodeOptions(): string[] {
  const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const [command, ...words] = manifest.scripts.start.split(/\s+/);
  if (command !== 'node') return [];
  return words.slice(0, words.indexOf('--import')).filter((word) => word.startsWith('--'));
}

/**
 * `npm start` (the embedded mode) as its own process, for a benchmark: every
 * service in one process against its own built-in simulator, on a fresh
 * data folder that is deleted at the end. The demo API key its first start
 * shows is read from its output, as a person would read it; it dies with
 * the data folder.
 */
export interface EmbeddedGateway {
  pid: number;
  /** http://127.0.0.1:port */
  origin: string;
  apiKey: string;
  stop(): Promise<void>;
}

const DEMO_KEY = /API key:\s+(svc_test_[0-9a-f]{56})/;
const WELCOME_END = 'Ctrl-C stops it.';
const WELCOME_POLL_MS = 50;
const WELCOME_ATTEMPTS = 600;

export async function startEmbeddedGateway({ nodeArgs = [] }: { nodeArgs?: readonly string[] } = {}): Promise<EmbeddedGateway> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-embedded-'));
  const service = await startService({
    name: 'embedded',
    entry: 'services/embedded/src/main.ts',
    env: { DATA_DIR: dataDir, NODE_ENV: 'production', LOG_LEVEL: 'info' },
    nodeArgs: [...startScriptNodeOptions(), ...nodeArgs],
    readyTimeoutMs: 120_000,
  });
  const stop = async () => {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  // The welcome text, with the key, follows the `listening` line.
  for (let attempt = 0; !service.logs().includes(WELCOME_END); attempt += 1) {
    if (attempt >= WELCOME_ATTEMPTS) {
      await stop();
      throw new Error(`the embedded mode printed no welcome text; see ${service.logFile}`);
    }
    await new Promise((resolve) => setTimeout(resolve, WELCOME_POLL_MS));
  }
  const apiKey = DEMO_KEY.exec(service.logs())?.[1];
  if (!apiKey) {
    await stop();
    throw new Error(`the embedded mode showed no demo API key; see ${service.logFile}`);
  }
  return { pid: service.pid, origin: `http://127.0.0.1:${service.port}`, apiKey, stop };
}
