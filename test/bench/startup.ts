/**
 * `npm run bench:startup`: what compiling buys each service, and what its
 * image holds. For every service, alone on the machine's Postgres and
 * Redis, the median over N starts (after one warm-up start that migrates)
 * of the time from spawn to its `listening` line and of its resident memory
 * right then and once idle, run three ways: TypeScript through tsx (`npm
 * run stack`), the compiled bundle (`node dist/main.js`), and the bundle with
 * --enable-source-maps (what the images run). Then each image's size as the
 * bytes its Dockerfile's last stage copies (no Docker engine needed): the
 * production dependencies `npm ci --omit=dev --workspace` installs, the
 * bundle, and the files it reads. Prints tables; asserts nothing.
 *
 * Options: --runs N (starts per service and way, default 5), --services
 * auth,edge (default all), --skip-images.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, readdirSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { buildAll, compiledEntry, ENTRY_POINTS, RUNTIME_FILES } from '../../deploy/build';
import { createTestDatabase } from '../support/databases';
import { REPO_ROOT } from '../support/paths';
import { startService, type ServiceProcess } from '../support/processes';
import { prepareBenchEnvironment } from './support/environment';
import { machineLine, median } from './support/stats';

const { values } = parseArgs({
  options: { runs: { type: 'string' }, services: { type: 'string' }, 'skip-images': { type: 'boolean', default: false } },
});
const runs = z.coerce.number().int().min(1).max(50).default(5).parse(values.runs);
const services = (values.services?.split(',') ?? Object.keys(ENTRY_POINTS)).filter(Boolean);
for (const service of services) if (!(service in ENTRY_POINTS)) throw new Error(`--services: no service ${service}`);

const ways = {
  tsx: { entry: (service: string) => `services/${service}/src/main.ts`, nodeArgs: [] },
  compiled: { entry: (service: string) => compiledEntry(service), nodeArgs: [] },
  'compiled + source maps': { entry: (service: string) => compiledEntry(service), nodeArgs: ['--enable-source-maps'] },
} as const;
type Way = keyof typeof ways;

/** What each service needs to start on its own; nothing it calls has to be up. */
function environmentFor(service: string, databaseUrl: string, redisUrl: string): Record<string, string> {
  const secrets = { ACCESS_TOKEN_SECRET: 'a'.repeat(48), SECRETS_KEY: '0f'.repeat(32) };
  const addresses = {
    AUTH_ADDRESS: '127.0.0.1:1',
    ROUTER_ADDRESS: '127.0.0.1:1',
    PRICING_ADDRESS: '127.0.0.1:1',
    LEDGER_ADDRESS: '127.0.0.1:1',
    USAGE_ADDRESS: '127.0.0.1:1',
    AGENT_ADDRESS: '127.0.0.1:1',
  };
  const database = { DATABASE_URL: databaseUrl, MIGRATE_ON_START: 'true' };
  const environments: Record<string, Record<string, string>> = {
    auth: { ...database, ...secrets, REDIS_URL: redisUrl, PRINCIPAL_EVENTS_PREFIX: 'bench-startup' },
    router: {},
    pricing: {},
    ledger: { ...database, REDIS_URL: redisUrl, REDIS_KEY_PREFIX: 'bench-startup' },
    usage: { DATABASE_URL: databaseUrl },
    agent: { ...database, ...addresses, GATEWAY_URL: 'http://127.0.0.1:1', AGENT_PLATFORM_SECRET: `pas_${'0a'.repeat(24)}`, SKILL_CREDENTIALS_KEY: '1e'.repeat(32) },
    edge: { ...secrets, ...addresses, REDIS_URL: redisUrl, PRINCIPAL_EVENTS_PREFIX: 'bench-startup' },
    simulator: {},
  };
  return environments[service] ?? {};
}

function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('VmRSS:'));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? Number.NaN) / 1024;
}

interface StartFigures {
  startupMs: number;
  rssAtListening: number;
  rssIdle: number;
}

const IDLE_SETTLE_MS = 2_000;

async function startOnce(service: string, way: Way, env: Record<string, string>): Promise<StartFigures> {
  const started = performance.now();
  let process: ServiceProcess | undefined;
  try {
    process = await startService({ name: `startup-${service}`, entry: ways[way].entry(service), env, nodeArgs: ways[way].nodeArgs, readyTimeoutMs: 120_000 });
    const startupMs = performance.now() - started;
    const rssAtListening = rssMiB(process.pid);
    await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS));
    return { startupMs, rssAtListening, rssIdle: rssMiB(process.pid) };
  } finally {
    await process?.stop();
  }
}

/** Bytes of a file or of everything under a directory (links not followed). */
function bytesOf(path: string): number {
  const stats = statSync(path, { throwIfNoEntry: false });
  if (!stats) return 0;
  if (!stats.isDirectory()) return stats.size;
  return readdirSync(path).reduce((sum, entry) => sum + bytesOf(join(path, entry)), 0);
}

/** The production dependencies one image installs, in a scratch copy of the manifests: `npm ci` as the Dockerfile runs it. */
function productionDependencyBytes(service: string): number {
  const scratch = mkdtempSync(join(tmpdir(), `image-${service}-`));
  try {
    const manifests = execFileSync('git', ['ls-files', 'package.json', '*/package.json', 'package-lock.json', '.npmrc'], { cwd: REPO_ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
    for (const file of manifests) {
      mkdirSync(join(scratch, file, '..'), { recursive: true });
      cpSync(join(REPO_ROOT, file), join(scratch, file));
    }
    execFileSync('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', `--workspace=@gateway/${service}`], { cwd: scratch, stdio: 'ignore' });
    rmSync(join(scratch, 'node_modules', '@gateway'), { recursive: true, force: true });
    return bytesOf(join(scratch, 'node_modules'));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
const cell = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '-');

async function main(): Promise<void> {
  const infra = await prepareBenchEnvironment('startup');
  console.log(machineLine());
  console.log(`load average at start: ${loadavg().map((value) => value.toFixed(2)).join(' ')}`);
  await buildAll(services, { quiet: true });
  const database = await createTestDatabase('bench_startup');
  try {
    console.log(`\nStart to \`listening\` and resident memory, median of ${runs} starts per way (after one warm-up)\n`);
    console.log('| Service | Way | Start (ms) | RSS at listening (MiB) | RSS idle (MiB) |');
    console.log('|---|---|---:|---:|---:|');
    for (const service of services) {
      const env = environmentFor(service, database.url, infra.redisUrl);
      await startOnce(service, 'compiled', env);
      for (const way of Object.keys(ways) as Way[]) {
        const figures: StartFigures[] = [];
        for (let run = 0; run < runs; run += 1) figures.push(await startOnce(service, way, env));
        console.log(
          `| ${service} | ${way} | ${cell(median(figures.map((f) => f.startupMs)))} | ${cell(median(figures.map((f) => f.rssAtListening)), 1)} | ${cell(median(figures.map((f) => f.rssIdle)), 1)} |`,
        );
      }
    }
  } finally {
    await database.drop();
  }
  console.log(`load average at the end: ${loadavg().map((value) => value.toFixed(2)).join(' ')}`);

  if (values['skip-images']) return;
  console.log('\nImage contents: what each Dockerfile copies into its last stage (the node base image not counted)\n');
  console.log('| Image | Production dependencies (MiB) | Bundle (MiB) | Files read at run time (KiB) | Total (MiB) |');
  console.log('|---|---:|---:|---:|---:|');
  for (const service of services) {
    const dependencies = productionDependencyBytes(service);
    const bundle = bytesOf(join(REPO_ROOT, 'services', service, 'dist'));
    const files = (RUNTIME_FILES[service] ?? []).reduce((sum, path) => sum + bytesOf(join(REPO_ROOT, path)), 0);
    console.log(`| gateway/${service} | ${mib(dependencies)} | ${mib(bundle)} | ${(files / 1024).toFixed(0)} | ${mib(dependencies + bundle + files)} |`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
