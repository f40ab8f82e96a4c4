/**
 * Scoring time per request: median, p90, p99 and max over many scorings,
 * after a warm-up, for a realistic mix and for the worst inputs (a huge
 * paste, a long history). Prints a table; not a test (timings depend on the
 * machine). Run: `npx tsx test/bench/scoring.ts [scorings]`.
 */
import { cpus } from 'node:os';
import { z } from 'zod';
import { scoreRequest, type ScoringInput } from '@gateway/lib/routing';
import { SCORING_EXAMPLES } from '../../services/lib/src/routing/scoring/scoring-examples';

const scorings = z.coerce.number().int().min(1000).default(100_000).parse(process.argv[2]);
const WARM_UP = 20_000;

/** Most traffic is short; the mix weights each worked example by how common such a request is. */
const MIX_WEIGHTS: Record<string, number> = {
  'a greeting': 10,
  'a factual lookup': 20,
  'a short explanation': 15,
  'a request for a small function': 10,
  'a short multi-turn chat': 15,
  'a comparison with trade-offs': 8,
  'a long document to summarize': 6,
  'debugging pasted code': 6,
  'a proof with LaTeX': 3,
  'a design task with tools': 4,
  'an agentic coding session': 3,
};

const mix: ScoringInput[] = SCORING_EXAMPLES.flatMap((example) => {
  const weight = MIX_WEIGHTS[example.name];
  if (weight === undefined) throw new Error(`no mix weight for the example "${example.name}"`);
  return Array.from({ length: weight }, () => example.input);
});

const hugePaste: ScoringInput = {
  messages: [{ role: 'user', content: `Summarize this log and explain why it fails:\n${'2025-09-01T12:00:00Z worker-7 retrying job 42 after timeout; queue depth 1800 {"attempt": 3}\n'.repeat(12_000)}` }],
  toolCount: 0,
  maxOutputTokens: 0,
};
const longHistory: ScoringInput = {
  messages: Array.from({ length: 10_000 }, (_, index) => ({
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: `Turn ${index}: can you compare the two options again and explain the trade-offs step by step?`,
  })),
  toolCount: 8,
  maxOutputTokens: 4000,
};

interface Row {
  workload: string;
  scorings: number;
  'median µs': string;
  'p90 µs': string;
  'p99 µs': string;
  'max µs': string;
  /** CPU time, which a busy machine inflates less than wall-clock time. */
  'mean CPU µs': string;
}

function measure(workload: string, inputs: readonly ScoringInput[], count: number): Row {
  for (let index = 0; index < WARM_UP; index += 1) scoreRequest(inputs[index % inputs.length] as ScoringInput);
  const nanos = new Float64Array(count);
  let checksum = 0;
  const cpuBefore = process.cpuUsage();
  for (let index = 0; index < count; index += 1) {
    const input = inputs[index % inputs.length] as ScoringInput;
    const started = process.hrtime.bigint();
    checksum += scoreRequest(input).complexity;
    nanos[index] = Number(process.hrtime.bigint() - started);
  }
  const cpu = process.cpuUsage(cpuBefore);
  if (checksum < 0) throw new Error('unreachable: keeps the scoring from being optimized away');
  nanos.sort();
  const at = (quantile: number) => ((nanos[Math.min(count - 1, Math.floor(quantile * count))] ?? 0) / 1000).toFixed(2);
  const cpuMean = ((cpu.user + cpu.system) / count).toFixed(2);
  return { workload, scorings: count, 'median µs': at(0.5), 'p90 µs': at(0.9), 'p99 µs': at(0.99), 'max µs': at(1), 'mean CPU µs': cpuMean };
}

const rows = [
  measure(`realistic mix (${SCORING_EXAMPLES.length} request shapes)`, mix, scorings),
  measure(`huge paste (${(hugePaste.messages[0]?.content.length ?? 0).toLocaleString('en-US')} characters)`, [hugePaste], Math.max(1000, scorings / 10)),
  measure(`long history (${longHistory.messages.length.toLocaleString('en-US')} messages)`, [longHistory], Math.max(1000, scorings / 10)),
];

/** Sums a text's character codes: reading every character once, the least any scan of it can cost. */
function readEveryCharacter(text: string): number {
  let sum = 0;
  for (let index = 0; index < text.length; index += 1) sum = (sum + text.charCodeAt(index)) & 0xffff;
  return sum;
}

/** How fast this machine is right now, to read the figures against. */
function calibration(): string {
  const text = 'The quick brown fox jumps over the lazy dog. '.repeat(183).slice(0, 8192);
  let checksum = 0;
  for (let round = 0; round < 2000; round += 1) checksum = (checksum + readEveryCharacter(text)) & 0xffff;
  const started = process.hrtime.bigint();
  for (let round = 0; round < 2000; round += 1) checksum = (checksum + readEveryCharacter(text)) & 0xffff;
  const micros = Number(process.hrtime.bigint() - started) / 2000 / 1000;
  return `${micros.toFixed(2)} µs (checksum ${checksum})`;
}

const perShape = SCORING_EXAMPLES.map((example) => measure(`  ${example.name}`, [example.input], Math.max(1000, scorings / 20)));

console.log(`Complexity scoring, Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}; ${WARM_UP.toLocaleString('en-US')} warm-up scorings per workload.`);
console.log(`For scale, a bare loop reading 8 KiB of text once takes ${calibration()} on this machine now.`);
console.table(rows);
console.log('Each request shape of the mix on its own:');
console.table(perShape);
const mix0 = rows[0];
console.log(
  `Target: under 100 µs per request. Realistic mix: median ${mix0?.['median µs']} µs, p99 ${mix0?.['p99 µs']} µs, mean CPU ${mix0?.['mean CPU µs']} µs.`,
);
console.log('Wall-clock tails include time the process was descheduled; on a busy machine compare them with the line "For scale" above.');
