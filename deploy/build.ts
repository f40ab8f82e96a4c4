import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { build, type Plugin } from 'esbuild';

/**
 * `npm run build`: compiles every service to JavaScript, one bundle per
 * entry point in services/<svc>/dist/ (`node services/auth/dist/main.js`).
 *
 * Why a bundle (esbuild) rather than tsc's file-per-module output: the
 * workspaces' package exports point at their TypeScript sources, which a
 * bundle resolves at build time, so the services run compiled with no second
 * set of exports; and a process loads one file instead of hundreds (the
 * figures are in docs/performance.md). Only the workspaces' own code is
 * bundled: every npm package stays an external `require`, so the image
 * installs it as usual (`npm ci --omit=dev`) and OpenTelemetry instruments
 * grpc-js and http when they load, after telemetry has started (each
 * main.ts loads its modules lazily, and the bundle keeps them lazy).
 *
 * Files read at run time stay where they are in the repository (the ledger's
 * Lua scripts, the shipped catalog): a module's `__dirname` in the bundle is
 * its source directory, so `join(__dirname, ...)` finds them, and each
 * service's Dockerfile copies them to the same paths (RUNTIME_FILES below;
 * the deploy check holds the Dockerfiles to it). gRPC needs no descriptor
 * files: ts-proto's stubs are code.
 */

export const REPO_ROOT = join(__dirname, '..');

/** Entry points of each deployable, by output name, from the service's directory. */
export const ENTRY_POINTS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  auth: { main: 'src/main.ts', migrate: 'src/db/migrate-cli.ts', admin: 'src/admin/cli.ts' },
  router: { main: 'src/main.ts' },
  pricing: { main: 'src/main.ts' },
  ledger: { main: 'src/main.ts', migrate: 'src/db/migrate-cli.ts' },
  usage: { main: 'src/main.ts' },
  agent: { main: 'src/main.ts', migrate: 'src/db/migrate-cli.ts' },
  edge: { main: 'src/main.ts' },
  simulator: { main: 'src/main.ts' },
};

/** What a service reads from disk at run time, from the repository root: its image copies each to the same path. */
export const RUNTIME_FILES: Readonly<Record<string, readonly string[]>> = {
  // The admin command's credit and quota commands run the ledger's Redis scripts.
  auth: ['services/lib/catalog/catalog.json', 'services/ledger/src/quota/lua'],
  router: ['services/lib/catalog/catalog.json'],
  pricing: ['services/lib/catalog/catalog.json'],
  ledger: ['services/lib/catalog/catalog.json', 'services/ledger/src/quota/lua'],
  usage: [],
  agent: ['services/lib/catalog/catalog.json'],
  edge: ['services/lib/catalog/catalog.json'],
  simulator: ['services/lib/catalog/catalog.json'],
};

/**
 * The Node flags a service's process starts with: its image's CMD
 * (deploy/dockerfiles.ts) and every stack started as deployed
 * (test/support/stack.ts) run them.
 *
 * `--single-threaded-gc`: a pod gets at most one CPU (deploy/base), while V8
 * gives its collector helper threads by the cores of the whole node. A
 * parallel scavenge waits for all of its helpers, so one helper descheduled
 * by the CPU limit or by another busy process stalls the event loop with it.
 * Measured on the 2-core machine, where the stack's processes share the
 * cores as they would share a node's: docs/decisions.md, "Garbage collection
 * on the main thread".
 */
export const SERVICE_NODE_FLAGS: readonly string[] = ['--single-threaded-gc'];

/** `node services/<svc>/dist/<name>.js`, from the repository root. */
export function compiledEntry(service: string, name = 'main'): string {
  return `services/${service}/dist/${name}.js`;
}

/** npm packages stay `require`s; the workspaces (`@gateway/*`) and relative imports are bundled. */
const externalPackages: Plugin = {
  name: 'external-packages',
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@gateway/') ? undefined : { path: args.path, external: true }));
  },
};

/** A module's `__dirname` stays its source directory (relative to the bundle, so the tree can move). */
function sourceDirname(outdir: string): Plugin {
  return {
    name: 'source-dirname',
    setup(builder) {
      builder.onLoad({ filter: /\.ts$/ }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        if (!source.includes('__dirname')) return undefined;
        const fromBundle = relative(outdir, dirname(args.path));
        const replaced = source.replace(/\b__dirname\b/g, `require('node:path').join(__dirname, ${JSON.stringify(fromBundle)})`);
        return { contents: replaced, loader: 'ts' };
      });
    },
  };
}

export interface BuildResult {
  service: string;
  files: string[];
  bytes: number;
}

export async function buildService(service: string): Promise<BuildResult> {
  const entries = ENTRY_POINTS[service];
  if (!entries) throw new Error(`no service ${service}; services: ${Object.keys(ENTRY_POINTS).join(', ')}`);
  const serviceDir = join(REPO_ROOT, 'services', service);
  const outdir = join(serviceDir, 'dist');
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  const result = await build({
    entryPoints: Object.fromEntries(Object.entries(entries).map(([name, path]) => [name, join(serviceDir, path)])),
    outdir,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    sourcemap: 'linked',
    // Stack traces name the source file and line (node --enable-source-maps).
    sourcesContent: false,
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
    plugins: [externalPackages, sourceDirname(outdir)],
  });
  const outputs = Object.entries(result.metafile.outputs);
  return {
    service,
    files: outputs.map(([path]) => relative(REPO_ROOT, join(process.cwd(), path))),
    bytes: outputs.reduce((sum, [, output]) => sum + output.bytes, 0),
  };
}

/** Builds every service (or those named), one after the other; prints a line each unless quiet. */
export async function buildAll(services: readonly string[] = Object.keys(ENTRY_POINTS), { quiet = false } = {}): Promise<BuildResult[]> {
  const results: BuildResult[] = [];
  for (const service of services) {
    const started = performance.now();
    const result = await buildService(service);
    results.push(result);
    if (quiet) continue;
    const bundles = result.files.filter((file) => file.endsWith('.js')).join(', ');
    console.log(`${service.padEnd(10)} ${(result.bytes / 1024).toFixed(0).padStart(5)} KiB  ${(performance.now() - started).toFixed(0).padStart(5)} ms  ${bundles}`);
  }
  return results;
}

async function main(): Promise<void> {
  const requested = process.argv.slice(2);
  await buildAll(requested.length > 0 ? requested : undefined);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
