import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, testRedisUrl, type TestDatabase } from '../support/databases';
import { REPO_ROOT } from '../support/paths';
import { PROCESS_READY_TIMEOUT_MS } from '../support/processes';
import { eventually } from './support/eventually';

jest.setTimeout(PROCESS_READY_TIMEOUT_MS * 2);

/**
 * `npm run stack` as a person runs it: it takes and prints the Redis
 * namespaces admin commands need, writes where its processes are, and a
 * SIGTERM ends every process, also one that arrives while they start.
 */
interface StackFile {
  principal_events_prefix: string;
  ledger_redis_key_prefix: string;
  processes: Array<{ name: string; pid: number }>;
}

const PORTS = Object.fromEntries(['EDGE', 'AUTH', 'ROUTER', 'PRICING', 'LEDGER', 'USAGE', 'SIMULATOR', 'AGENT'].map((name) => [`${name}_PORT`, '0']));

let database: TestDatabase;
let logDir: string;
beforeAll(async () => {
  database = await createTestDatabase('stack_cli');
  logDir = mkdtempSync(join(tmpdir(), 'stack-cli-'));
});
afterAll(async () => {
  rmSync(logDir, { recursive: true, force: true });
  await database?.drop();
});

function startStackCli(env: Record<string, string> = {}): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'test/support/stack-cli.ts')], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: database.url, REDIS_URL: testRedisUrl(), TEST_LOG_DIR: logDir, ...PORTS, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Every process the stack started: each writes its output to `<service>-<pid>.log` in the log folder. */
function startedPids(): number[] {
  return readdirSync(logDir).flatMap((name) => {
    const pid = /-(\d+)\.log$/.exec(name)?.[1];
    return pid === undefined ? [] : [Number(pid)];
  });
}

/** The pids of a process's children, from /proc (Linux). */
function childrenOf(pid: number): number[] {
  const path = `/proc/${pid}/task/${pid}/children`;
  return existsSync(path) ? readFileSync(path, 'utf8').split(/\s+/).filter(Boolean).map(Number) : [];
}

describe('npm run stack', () => {
  it('takes and prints its Redis namespaces, writes its processes, and ends them all on SIGTERM', async () => {
    const stack = startStackCli({ PRINCIPAL_EVENTS_PREFIX: 'stack-cli-test' });
    await eventually(async () => (stack.output().includes('Ctrl-C stops every process.') ? true : undefined), 'the stack to start', PROCESS_READY_TIMEOUT_MS);
    const file = join(logDir, 'stack.json');
    const written = JSON.parse(readFileSync(file, 'utf8')) as StackFile;
    expect(written.principal_events_prefix).toBe('stack-cli-test');
    expect(stack.output()).toContain(`export PRINCIPAL_EVENTS_PREFIX=stack-cli-test LEDGER_REDIS_KEY_PREFIX=${written.ledger_redis_key_prefix}`);
    expect(written.processes.map(({ name }) => name).sort()).toEqual(['agent', 'auth', 'edge', 'ledger', 'pricing', 'router', 'simulator', 'usage']);
    expect(written.processes.every(({ pid }) => alive(pid))).toBe(true);

    stack.child.kill('SIGTERM');
    expect(await stack.exited).toBe(0);
    expect(written.processes.filter(({ pid }) => alive(pid))).toEqual([]);
    expect(startedPids().filter(alive)).toEqual([]);
    expect(existsSync(file)).toBe(false);
  });

  it('ends the processes it was starting when SIGTERM arrives before they are all up', async () => {
    const stack = startStackCli();
    const pid = stack.child.pid ?? -1;
    const starting = await eventually(async () => {
      const children = childrenOf(pid);
      return children.length > 0 ? children : undefined;
    }, 'the first service processes');
    expect(stack.output()).not.toContain('Ctrl-C stops every process.');

    stack.child.kill('SIGTERM');
    await stack.exited;
    expect(starting.filter(alive)).toEqual([]);
    expect(startedPids().filter(alive)).toEqual([]);
  });
});
