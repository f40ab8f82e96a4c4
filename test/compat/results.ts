import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../support/paths';

/**
 * What the compatibility suite found, client by feature, and the table in
 * docs/compatibility.md written from it. The suite compares the committed
 * table with the one its own run renders and fails on any difference, so
 * the table cannot say more (or less) than the last run proved.
 */
export const clients = {
  openai_node: 'openai (Node)',
  openai_python: 'openai (Python, sync)',
  openai_python_async: 'openai (Python, async)',
  ai_sdk_responses: 'Vercel AI SDK, `openai(...)` (Responses API)',
  ai_sdk_chat: 'Vercel AI SDK, `openai.chat(...)`',
  langchain: 'LangChain JS, `ChatOpenAI`',
} as const;
export type ClientName = keyof typeof clients;

export const features = {
  plain: 'Plain call',
  stream: 'Streamed (naive loop)',
  stream_usage: 'Usage of a stream',
  stream_cost: 'Cost of a stream (`x_service`)',
  tools: 'Tool call round trip',
  structured: 'Structured output',
  usage: 'Usage read back',
  request_id: 'Request id read by the SDK',
  responses: 'Responses API',
  error_auth: 'Bad key: typed 401',
  error_model: 'Unknown model: typed 400',
} as const;
export type FeatureName = keyof typeof features;

/** `pass` and `fail` are what a check found; `not_checked` is a cell the suite has no check for. */
export type Outcome = 'pass' | 'fail' | 'not_checked';
export interface Results {
  outcomes: Record<ClientName, Record<FeatureName, Outcome>>;
  /** The version of each client library the run used (package name -> version). */
  versions: Record<string, string>;
}

export const RESULTS_PATH = join(REPO_ROOT, '.tmp', 'compat-results.json');
export const TABLE_PATH = join(REPO_ROOT, 'docs', 'compatibility.md');
const BEGIN = '<!-- compatibility table: generated from the suite\'s results by `npm run compat:table`; do not edit -->';
const END = '<!-- end of compatibility table -->';

const SYMBOL: Record<Outcome, string> = { pass: 'yes', fail: '**no**', not_checked: '-' };

export function emptyResults(): Results {
  const row = () => Object.fromEntries(Object.keys(features).map((feature) => [feature, 'not_checked'])) as Record<FeatureName, Outcome>;
  return { outcomes: Object.fromEntries(Object.keys(clients).map((client) => [client, row()])) as Results['outcomes'], versions: {} };
}

export function renderTable(results: Results): string {
  const names = Object.keys(features) as FeatureName[];
  const header = `| Client | ${names.map((name) => features[name]).join(' | ')} |`;
  const rule = `|---|${names.map(() => '---').join('|')}|`;
  const rows = (Object.keys(clients) as ClientName[]).map((client) => `| ${clients[client]} | ${names.map((name) => SYMBOL[results.outcomes[client][name]]).join(' | ')} |`);
  const versions = Object.entries(results.versions)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, version]) => `${name} ${version}`)
    .join(', ');
  const legend = '`yes`: the check passed; `**no**`: it failed; `-`: the suite has no check for it.';
  return [BEGIN, header, rule, ...rows, '', legend, `Versions run: ${versions}.`, END].join('\n');
}

/** The generated table as the committed document holds it; undefined when the markers are missing. */
export function committedTable(document = readFileSync(TABLE_PATH, 'utf8')): string | undefined {
  const begin = document.indexOf(BEGIN);
  const end = document.indexOf(END);
  if (begin < 0 || end < begin) return undefined;
  return document.slice(begin, end + END.length);
}

/** Replaces the generated table of docs/compatibility.md with one rendered from `results`. */
export function writeTable(results: Results): void {
  const document = readFileSync(TABLE_PATH, 'utf8');
  const current = committedTable(document);
  if (current === undefined) throw new Error(`${TABLE_PATH} has no generated table between its markers`);
  writeFileSync(TABLE_PATH, document.replace(current, renderTable(results)));
}

export function writeResults(results: Results): void {
  writeFileSync(RESULTS_PATH, `${JSON.stringify(results, null, 2)}\n`);
}

export function readResults(): Results {
  return JSON.parse(readFileSync(RESULTS_PATH, 'utf8')) as Results;
}
