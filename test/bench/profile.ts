/**
 * `npm run bench:profile -- <file.cpuprofile | folder> ...`: where a
 * process's CPU went, from the profiles `node --cpu-prof` writes (e.g. those
 * of `npm run bench:compare -- --profile edge`). Prints the functions with
 * the most self time and the same time summed by package (a node_modules
 * package, Node's own internals, or a workspace of this repository), so a
 * cost spread thin over one library's many functions shows too, and the
 * functions with the most total time (their own and their callees'): what a
 * step of a request costs in the running process, which a loop measuring the
 * same function alone does not tell (docs/performance.md). Divide a total by
 * the requests the profile's window served for its cost per request.
 *
 * Options: --skip-seconds N (leave out the first N seconds of each profile:
 * start-up and warm-up), --top N (functions listed, default 30), --match TEXT
 * (the total-time table lists only functions whose name or file holds TEXT).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { REPO_ROOT } from '../support/paths';

const profileSchema = z.object({
  nodes: z.array(
    z.object({
      id: z.number(),
      callFrame: z.object({ functionName: z.string(), url: z.string(), lineNumber: z.number() }),
      children: z.array(z.number()).optional(),
    }),
  ),
  startTime: z.number(),
  samples: z.array(z.number()),
  timeDeltas: z.array(z.number()),
});

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { 'skip-seconds': { type: 'string' }, top: { type: 'string' }, match: { type: 'string' } },
});
const skipMicros = z.coerce.number().min(0).default(0).parse(values['skip-seconds']) * 1e6;
const top = z.coerce.number().int().positive().default(30).parse(values.top);
if (positionals.length === 0) {
  console.error('Name one or more .cpuprofile files, or folders holding them.');
  process.exit(2);
}

const files = positionals.flatMap((path) =>
  statSync(path).isDirectory()
    ? readdirSync(path)
        .filter((name) => name.endsWith('.cpuprofile'))
        .map((name) => join(path, name))
    : [path],
);

/** Where a frame's code lives: a package, Node itself, or this repository's file. */
function packageOf(url: string): string {
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + 'node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1] ?? ''}` : (rest[0] ?? url);
  }
  if (url.startsWith('node:') || (!url.includes('/') && url !== '')) return 'node (internals)';
  if (url === '') return '(native / VM)';
  return relative(REPO_ROOT, url.replace(/^file:\/\//, '')).split('/').slice(0, 2).join('/');
}

function functionLabel(frame: { functionName: string; url: string; lineNumber: number }): string {
  return `${frame.functionName || '(anonymous)'}  ${place(frame.url, frame.lineNumber)}`;
}

function place(url: string, line: number): string {
  const path = url.includes('node_modules/') ? url.slice(url.lastIndexOf('node_modules/') + 'node_modules/'.length) : relative(REPO_ROOT, url.replace(/^file:\/\//, ''));
  return url === '' ? '' : `${path}:${line + 1}`;
}

for (const file of files) {
  const profile = profileSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  // Each node's label once: every sample's whole stack is walked for the totals below.
  const labels = new Map(profile.nodes.map((node) => [node.id, functionLabel(node.callFrame)]));
  const parents = new Map(profile.nodes.flatMap((node) => (node.children ?? []).map((child) => [child, node.id] as const)));
  const byFunction = new Map<string, number>();
  const totalByFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  let elapsed = 0;
  let busy = 0;
  let idle = 0;
  profile.samples.forEach((nodeId, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    elapsed += delta;
    if (elapsed < skipMicros) return;
    const frame = frames.get(nodeId);
    if (!frame) return;
    if (frame.functionName === '(idle)') {
      idle += delta;
      return;
    }
    busy += delta;
    const name = labels.get(nodeId) ?? '';
    byFunction.set(name, (byFunction.get(name) ?? 0) + delta);
    // Every function on the sampled stack spent this time, once each however deep it recursed.
    const onStack = new Set<string>();
    for (let id: number | undefined = nodeId; id !== undefined; id = parents.get(id)) {
      const label = labels.get(id);
      if (label !== undefined && frames.get(id)?.functionName !== '(root)') onStack.add(label);
    }
    for (const caller of onStack) totalByFunction.set(caller, (totalByFunction.get(caller) ?? 0) + delta);
    const owner = frame.url === '' ? frame.functionName : packageOf(frame.url);
    byPackage.set(owner, (byPackage.get(owner) ?? 0) + delta);
  });
  const share = (micros: number) => `${((micros / Math.max(1, busy)) * 100).toFixed(1)}%`;
  const rows = (map: Map<string, number>, count: number, column = 'self ms') =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([name, micros]) => ({ [column]: Math.round(micros / 1000), share: share(micros), name }));
  console.log(`\n${relative(process.cwd(), file)}: ${(busy / 1e6).toFixed(1)} s busy, ${(idle / 1e6).toFixed(1)} s idle (after the first ${skipMicros / 1e6} s)`);
  console.table(rows(byPackage, 20));
  console.table(rows(byFunction, top));
  const match = values.match;
  const totals = match === undefined ? totalByFunction : new Map([...totalByFunction].filter(([name]) => name.includes(match)));
  console.table(rows(totals, top, 'total ms'));
}
