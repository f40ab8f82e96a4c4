import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_CONSOLE_DIR } from '@gateway/edge/console';

const REPOSITORY_ROOT = join(__dirname, '..', '..', '..');

/**
 * Builds the Console's static files with the workspace's own build script
 * (Vite), into `outDir` when given (tests build a copy of their own), else
 * into services/console/dist, where edge serves them from.
 */
export function buildConsole(outDir?: string): Promise<void> {
  const args = ['run', 'build', '--workspace', '@gateway/console', ...(outDir ? ['--', '--outDir', outDir, '--emptyOutDir'] : [])];
  return new Promise((resolve, reject) => {
    // A production build whatever the caller's NODE_ENV (jest sets `test`, which would keep development code in).
    const build = spawn('npm', args, { cwd: REPOSITORY_ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_ENV: 'production' } });
    let output = '';
    build.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    build.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    build.once('error', reject);
    build.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`npm run build of the Console exited with ${code}:\n${output}`))));
  });
}

/**
 * `npm start` builds the Console the first time (nothing built is committed).
 * A failed build does not stop the gateway: /console then says how to build it.
 */
export async function ensureConsoleBuilt(report: (line: string) => void): Promise<void> {
  if (existsSync(join(DEFAULT_CONSOLE_DIR, 'index.html'))) return;
  report('Building the Console (first start only)…');
  try {
    await buildConsole();
    report('The Console is built.');
  } catch (error) {
    report(`The Console could not be built; the gateway runs without it. ${error instanceof Error ? error.message : String(error)}`);
  }
}
