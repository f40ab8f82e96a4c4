import '../e2e/support/catalog';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startE2e, type Caller, type E2e } from '../e2e/support/harness';
import { costOf } from '../e2e/support/prices';
import { REPO_ROOT } from '../support/paths';
import { aiSdkChecks, langchainChecks, openaiNodeChecks, type Checks, type Gateway } from './js-clients';
import { clients, committedTable, emptyResults, features, renderTable, writeResults, type ClientName, type FeatureName } from './results';

/**
 * The clients people use, unchanged, against the multi-process stack: the
 * `openai` npm client, the OpenAI Python SDK (sync and async, from the venv
 * test/compat/setup-python.sh makes), the Vercel AI SDK (default provider,
 * which calls the Responses API, and `.chat`) and LangChain JS. Each feature
 * of each client is one test; the results are written to
 * .tmp/compat-results.json, and the last test fails unless the table in
 * docs/compatibility.md is exactly the one these results render.
 */
jest.setTimeout(120_000);

const PYTHON = join(REPO_ROOT, '.tmp', 'compat-python', 'bin', 'python');
const results = emptyResults();
for (const name of ['openai', 'ai', '@ai-sdk/openai', '@langchain/openai', '@langchain/core']) {
  results.versions[name] = (JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

let e2e: E2e;
let caller: Caller;
/** Filled in once the stack is up; the checks read it only when they run. */
const gateway: Gateway = { url: '', key: '', badKey: `svc_test_${'0'.repeat(56)}`, costOf };

beforeAll(async () => {
  e2e = await startE2e('e2e_compat');
  caller = await e2e.seed({ plan: 'simulated' });
  gateway.url = e2e.gatewayUrl;
  gateway.key = caller.key;
});

afterAll(async () => {
  writeResults(results);
  await e2e?.close();
});

/** One test per feature the client has a check for; a cell with no check stays `not_checked`. */
function describeClient(client: ClientName, checks: Checks): void {
  describe(clients[client], () => {
    for (const [feature, check] of Object.entries(checks) as Array<[FeatureName, () => Promise<void>]>) {
      it(features[feature], async () => {
        results.outcomes[client][feature] = 'fail';
        await check();
        results.outcomes[client][feature] = 'pass';
      });
    }
  });
}

describeClient('openai_node', openaiNodeChecks(gateway));
describeClient('ai_sdk_responses', aiSdkChecks(gateway, 'responses'));
describeClient('ai_sdk_chat', aiSdkChecks(gateway, 'chat'));
describeClient('langchain', langchainChecks(gateway));

interface PythonOutcome {
  ok: boolean;
  error?: string;
  trace?: string;
  detail?: Record<string, unknown>;
}
type PythonReport = Record<'openai_python' | 'openai_python_async', Partial<Record<FeatureName, PythonOutcome>>> & { version: string };

describe('the OpenAI Python SDK', () => {
  let report: PythonReport | undefined;

  beforeAll(async () => {
    if (!existsSync(PYTHON)) return;
    const { stdout } = await promisify(execFile)(PYTHON, [join(__dirname, 'python', 'compat.py')], {
      env: { PATH: process.env.PATH ?? '', GATEWAY_URL: gateway.url, API_KEY: gateway.key, BAD_KEY: gateway.badKey },
      maxBuffer: 16 * 1024 * 1024,
    });
    report = JSON.parse(stdout) as PythonReport;
    results.versions['openai (Python)'] = report.version;
  }, 300_000);

  it('runs from the venv test/compat/setup-python.sh makes (npm test and .ci/run make it)', () => {
    if (!existsSync(PYTHON)) throw new Error(`${PYTHON} is missing: run bash test/compat/setup-python.sh (it needs python3 with venv)`);
    expect(report?.version).toMatch(/^\d+\.\d+\.\d+$/);
  });

  for (const client of ['openai_python', 'openai_python_async'] as const) {
    describe(clients[client], () => {
      for (const feature of Object.keys(features) as FeatureName[]) {
        it(features[feature], () => {
          results.outcomes[client][feature] = 'fail';
          if (!report) throw new Error('the Python checks did not run');
          const outcome = report[client][feature];
          if (!outcome) throw new Error(`compat.py reported no ${feature} check for ${client}`);
          results.outcomes[client][feature] = outcome.ok ? 'pass' : 'fail';
          if (!outcome.ok) throw new Error(`${outcome.error ?? 'failed'}\n${outcome.trace ?? ''}`);
          // The Python client read the cost header; it is the catalog price of the usage it read.
          if (feature === 'usage') {
            const { usage, cost_usd: cost, model } = outcome.detail as { usage: { prompt_tokens: number; completion_tokens: number }; cost_usd: string; model: string };
            expect(BigInt(cost.replace('.', ''))).toBe(costOf(model, usage));
          }
        });
      }
    });
  }
});

describe('docs/compatibility.md', () => {
  it('holds exactly the table this run\'s results render (npm run compat:table rewrites it)', () => {
    expect(committedTable()).toBe(renderTable(results));
  });

  it('logged no credential in any process', () => {
    expect(e2e.credentialsInLogs([caller.key])).toEqual([]);
  });
});
