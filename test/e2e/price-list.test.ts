import { TEST_CATALOG_PATH } from './support/catalog';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { worstCaseOf, type CatalogFile } from '@gateway/lib/catalog';
import { formatUsd } from '@gateway/lib/money';
import OpenAI from 'openai';
import { eventually } from './support/eventually';
import { startE2e, type E2e } from './support/harness';
import { committedTrace } from './support/ledger';
import { costOf, testCatalog } from './support/prices';
import { expectApiError, failure } from './support/headers';

/**
 * The price list edge holds (docs/decisions.md#the-price-list-edge-holds): pricing publishes a new
 * version when its catalog's prices change, edge prices with it without a
 * restart, names it on the trace, and keeps pricing from the list it holds
 * while pricing is down.
 */
jest.setTimeout(90_000);

/** pricing's own copy of the test catalog, which this suite changes; edge and the router keep theirs. */
const pricingCatalogPath = join(mkdtempSync(join(tmpdir(), 'pricing-catalog-')), 'catalog.json');
const catalog = JSON.parse(readFileSync(TEST_CATALOG_PATH, 'utf8')) as CatalogFile;
writeFileSync(pricingCatalogPath, JSON.stringify(catalog));

/** Output tokens at $123 per million on the model served here, far from any shipped price. */
const NEW_OUTPUT_USD = '123.00';

let e2e: E2e;
let client: OpenAI;

beforeAll(async () => {
  e2e = await startE2e('e2e_price_list', { serviceEnv: { pricing: { CATALOG_PATH: pricingCatalogPath } } });
  client = e2e.client((await e2e.seed({ plan: 'simulated' })).key);
});

afterAll(() => e2e?.close());

/** A named model is served as named: the price depends only on that model's prices and the tokens. */
async function ask() {
  const { data, response } = await client.chat.completions.create({ model: 'sim-small', messages: [{ role: 'user', content: 'What is a lighthouse?' }] }).withResponse();
  const usage = data.usage;
  if (!usage) throw new Error('the simulator reports usage');
  return { usage, cost: response.headers.get('x-service-cost-usd'), requestId: response.headers.get('x-service-request-id') ?? '' };
}

/** The cost at the output price this suite publishes. */
function costAtNewPrice(usage: { prompt_tokens: number; completion_tokens: number }): string {
  const model = catalog.models.find(({ id }) => id === 'sim-small');
  if (!model) throw new Error('the test catalog has sim-small');
  const inputMicros = costOf('sim-small', { prompt_tokens: usage.prompt_tokens, completion_tokens: 0 }) * 1_000_000n;
  const total = inputMicros + BigInt(usage.completion_tokens) * 123_000_000n;
  return formatUsd((total + 500_000n) / 1_000_000n);
}

it('prices with the catalog prices, then with a new price list version once pricing publishes it, without a restart of edge', async () => {
  const before = await ask();
  expect(before.cost).toBe(formatUsd(costOf('sim-small', before.usage)));
  const firstVersion = (await committedTrace(e2e.ledger.db, before.requestId)).price_list_version;
  expect(firstVersion).toMatch(/^sha256:[0-9a-f]{16}$/);

  const edgePid = e2e.stack.services.edge.pid;
  writeFileSync(
    pricingCatalogPath,
    JSON.stringify({ ...catalog, models: catalog.models.map((model) => (model.id === 'sim-small' ? { ...model, output_usd_per_million_tokens: NEW_OUTPUT_USD } : model)) }),
  );
  // The new version reaches edge when pricing sees the file; until then answers carry the old prices.
  const after = await eventually(async () => {
    const answer = await ask();
    return answer.cost === costAtNewPrice(answer.usage) ? answer : undefined;
  }, 'a cost at the new output price');
  expect(e2e.stack.services.edge.pid).toBe(edgePid);
  const secondVersion = (await committedTrace(e2e.ledger.db, after.requestId)).price_list_version;
  expect(secondVersion).toMatch(/^sha256:[0-9a-f]{16}$/);
  expect(secondVersion).not.toBe(firstVersion);
});

it('prices from the list it holds while pricing is down', async () => {
  await e2e.stack.services.pricing.stop();
  try {
    const answer = await ask();
    expect(answer.cost).toBe(costAtNewPrice(answer.usage));
    expect(await committedTrace(e2e.ledger.db, answer.requestId)).toMatchObject({ priced: true, price_list_version: expect.stringMatching(/^sha256:/) });
  } finally {
    await e2e.restart('pricing');
  }
});

it('admits by the worst case at the prices of the list it holds, without a restart of edge', async () => {
  // The list published above (sim-small's output at $123 per million) is the one edge holds.
  await eventually(async () => {
    const answer = await ask();
    return answer.cost === costAtNewPrice(answer.usage) ? true : undefined;
  }, 'the new price list in edge');
  const tiny = e2e.client((await e2e.seed({ plan: 'e2e_spend_tiny' })).key);
  const body = { model: 'sim-small', max_tokens: 1000, messages: [{ role: 'user' as const, content: 'Write a long poem.' }] };
  const model = testCatalog.models.get('sim-small');
  if (!model) throw new Error('the test catalog has sim-small');
  const atNewPrice = worstCaseOf(body, { ...model, outputMicrosPerMillion: 123_000_000n }).costMicros;
  expect(atNewPrice).not.toBe(worstCaseOf(body, model).costMicros);
  const { body: refusal } = expectApiError(await failure(tiny.chat.completions.create(body)), 402, 'quota');
  expect(refusal.message).toContain(`could cost up to $${formatUsd(atNewPrice)} `);
});
