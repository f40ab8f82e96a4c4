import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../support/paths';
import { startEmbedded, stop, type Embedded } from './support/embedded-process';

/**
 * The README's quickstart, as written: every `sh` and `js` block between
 * "## Quickstart" and "## What runs", taken from README.md itself, runs
 * against `npm start`'s code. The shell blocks run in order in one bash, as
 * a reader pastes them into one terminal, with curl failing on an HTTP error
 * so that a wrong route or body fails the run; the JavaScript blocks run as
 * the .mjs files they name, inside the repository so that their imports
 * resolve as they do from its root. Only the placeholders a reader fills in
 * are replaced: the printed key and password, and the port.
 */
const README_ORIGIN = 'http://127.0.0.1:8080';

interface Block {
  lang: 'sh' | 'js';
  code: string;
}

function quickstartBlocks(): Block[] {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('## Quickstart\n');
  const end = readme.indexOf('## What runs\n');
  expect(start).toBeGreaterThan(-1);
  expect(end).toBeGreaterThan(start);
  return [...readme.slice(start, end).matchAll(/^```(sh|js)\n([\s\S]*?)^```$/gm)].map((match) => ({ lang: match[1] as Block['lang'], code: match[2] ?? '' }));
}

function run(command: string, args: string[], options: { cwd: string; env: Record<string, string> }): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('close', (code) => resolve({ code, output }));
  });
}

/** Replaces one placeholder, failing when the README no longer has it (the test would silently test less). */
function fillIn(code: string, placeholder: RegExp, value: string): string {
  expect(code).toMatch(placeholder);
  return code.replace(placeholder, value);
}

const dataDir = mkdtempSync(join(tmpdir(), 'gateway-readme-'));
const workDir = mkdtempSync(join(tmpdir(), 'gateway-readme-shell-'));
const scriptDir = join(REPO_ROOT, '.tmp', `readme-${process.pid}`);
afterAll(() => {
  for (const dir of [dataDir, workDir, scriptDir]) rmSync(dir, { recursive: true, force: true });
});

describe('the README quickstart', () => {
  let embedded: Embedded;
  let origin = '';
  let apiKey = '';
  let password = '';
  const blocks = quickstartBlocks();

  beforeAll(async () => {
    embedded = await startEmbedded(dataDir);
    origin = `http://127.0.0.1:${embedded.port}`;
    apiKey = /API key:\s+(svc_test_[0-9a-f]{56})/.exec(embedded.output())?.[1] ?? '';
    password = /password:\s+(\S+)/.exec(embedded.output())?.[1] ?? '';
    expect(apiKey).not.toBe('');
    expect(password).not.toBe('');
    mkdirSync(scriptDir, { recursive: true });
  });
  afterAll(async () => {
    if (embedded) await stop(embedded);
  });

  it('runs every shell block, in order, in one shell', async () => {
    const shell = blocks.filter((block) => block.lang === 'sh').map((block) => block.code);
    expect(shell.length).toBeGreaterThanOrEqual(4);
    let script = shell.join('\n').replaceAll(README_ORIGIN, origin);
    script = fillIn(script, /^export KEY=svc_test_\.\.\..*$/m, `export KEY=${apiKey}`);
    script = fillIn(script, /^PASSWORD=\.\.\..*$/m, `PASSWORD='${password}'`);
    const prelude = 'set -euo pipefail\ncurl() { command curl --fail-with-body "$@"; }\n';
    const { code, output } = await run('bash', ['-c', prelude + script], { cwd: workDir, env: { PATH: process.env.PATH ?? '', HOME: workDir } });
    expect({ code, output }).toMatchObject({ code: 0 });
    // What each step promises is in what it printed.
    expect(output).toMatch(/^x-service-cost-usd: \d+\.\d{6}\r?$/m);
    expect(output).toContain('"secret": "svc_test_');
    expect(output).toMatch(/"id": "[0-9a-f-]{36}",\s*"name": "laptop"/);
    expect(output).toMatch(/"status": "revoked"/);
    expect(output).toMatch(/^204$/m);
    expect(output).toMatch(/"next_run_at": "\d{4}-\d\d-\d\dT/);
  });

  it('runs every JavaScript block as the file it names', async () => {
    const scripts = blocks.filter((block) => block.lang === 'js');
    expect(scripts.length).toBeGreaterThanOrEqual(4);
    for (const { code } of scripts) {
      const name = /^\/\/ ([\w-]+\.mjs)\n/.exec(code)?.[1];
      expect({ name, code }).toMatchObject({ name: expect.any(String) });
      const file = join(scriptDir, name ?? '');
      writeFileSync(file, code.replaceAll(README_ORIGIN, origin));
      const result = await run(process.execPath, [file], { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', KEY: apiKey } });
      expect({ name, ...result }).toMatchObject({ name, code: 0 });
      expect({ name, output: result.output }).toMatchObject({ name, output: expect.stringMatching(/cost: \d+\.\d{6} USD/) });
    }
  });
});
