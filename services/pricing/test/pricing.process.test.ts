import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CATALOG_PATH, loadCatalog } from '@gateway/lib/catalog';
import { DomainError } from '@gateway/lib/errors';
import { createPromiseClient, type PromiseClient } from '@gateway/lib/grpc';
import { BaselineReason, PricingServiceService, type PriceList, type PriceRequest } from '@gateway/proto/gen/gateway/pricing/v1/pricing';
import { healthStatus } from '../../../test/support/health';
import { runToExit, startService, type ServiceProcess } from '../../../test/support/processes';
import { PRICING_HEALTH_NAME } from '../src/server';

const ENTRY = 'services/pricing/src/main.ts';


const priceRequest = (overrides: Partial<PriceRequest>): PriceRequest => ({
  servedModel: 'sim-small',
  requestedModel: 'auto',
  planTier: 'simulated',
  inputTokens: '1000',
  outputTokens: '500',
  tier: 'simple',
  ...overrides,
});

describe('pricing process over gRPC', () => {
  const catalog = loadCatalog();
  let pricing: ServiceProcess;
  let client: PromiseClient<typeof PricingServiceService>;

  /** The cost of the tokens on a catalog model, worked out here from the file's prices. */
  const expectedCost = (id: string, inputTokens: bigint, outputTokens: bigint): string => {
    const model = catalog.models.get(id);
    if (!model) throw new Error(`the shipped catalog lacks ${id}`);
    const exactTimesMillion = inputTokens * model.inputMicrosPerMillion + outputTokens * model.outputMicrosPerMillion;
    const quotient = exactTimesMillion / 1_000_000n;
    return String(exactTimesMillion % 1_000_000n >= 500_000n ? quotient + 1n : quotient);
  };

  beforeAll(async () => {
    pricing = await startService({ name: 'pricing', entry: ENTRY, env: {} });
    client = createPromiseClient(PricingServiceService, { serviceName: 'pricing', address: pricing.address, deadlineMs: 5000 });
  });

  afterAll(async () => {
    client.close();
    await pricing.stop();
  });

  it('reports SERVING over grpc.health.v1, overall and by service name', async () => {
    await expect(healthStatus(pricing.address, '')).resolves.toBe('SERVING');
    await expect(healthStatus(pricing.address, PRICING_HEALTH_NAME)).resolves.toBe('SERVING');
  });

  it('prices auto against the plan ceiling model', async () => {
    const response = await client.price(priceRequest({ inputTokens: '123457', outputTokens: '9876' }));
    const cost = expectedCost('sim-small', 123_457n, 9876n);
    const baselineCost = expectedCost('sim-reasoning', 123_457n, 9876n);
    expect(response).toEqual({
      priced: true,
      costMicros: cost,
      baseline: { model: 'sim-reasoning', reason: BaselineReason.BASELINE_REASON_PLAN_CEILING, costMicros: baselineCost },
      savingsMicros: String(BigInt(baselineCost) - BigInt(cost)),
      savingsEstimatePct: 90,
      priceListVersion: expect.stringMatching(/^sha256:[0-9a-f]{16}$/),
    });
  });

  it('prices a named model as its own baseline', async () => {
    const response = await client.price(priceRequest({ servedModel: 'sim-medium', requestedModel: 'sim-medium', tier: 'standard' }));
    expect(response).toMatchObject({ priced: true, baseline: { model: 'sim-medium', reason: BaselineReason.BASELINE_REASON_NAMED }, savingsMicros: '0' });
    expect(response.baseline?.costMicros).toBe(response.costMicros);
  });

  it('answers unpriced, not free, for a model outside the catalog', async () => {
    const response = await client.price(priceRequest({ servedModel: 'someone-elses-model' }));
    expect(response).toMatchObject({ priced: false, costMicros: '0', baseline: undefined });
  });

  it('delivers negative tokens as the validation DomainError, intact', async () => {
    const error = await client.price(priceRequest({ inputTokens: '-5' })).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ kind: 'validation', field: 'input_tokens', message: 'input_tokens: must be a whole number of tokens, 0 or more' });
  });

  it('lists the catalog with micro-dollar prices and the prices date', async () => {
    const response = await client.listModels({});
    expect(response.pricesAsOf).toBe(catalog.pricesAsOf);
    expect(response.models.map(({ id }) => id)).toEqual([...catalog.models.keys()]);
    expect(response.models.find(({ id }) => id === 'sim-reasoning')).toMatchObject({
      provider: 'simulator',
      tier: 'reasoning',
      unsupportedParams: expect.arrayContaining(['temperature', 'max_tokens']),
    });
  });

  it('drains on SIGTERM and exits 0, ending the price list streams open so that they do not hold the drain', async () => {
    const spare = await startService({ name: 'pricing', entry: ENTRY, env: { DRAIN_DELAY_MS: '0', DRAIN_TIMEOUT_MS: '600000' } });
    const watcher = createPromiseClient(PricingServiceService, { serviceName: 'pricing', address: spare.address, deadlineMs: 5000 });
    try {
      const versions = watcher.watchPriceList({})[Symbol.asyncIterator]();
      await versions.next();
      await expect(spare.stop()).resolves.toBe(0);
      await expect(versions.next()).resolves.toMatchObject({ done: true });
    } finally {
      watcher.close();
    }
  });
});

describe('pricing process publishing its price list', () => {
  let folder: string;
  let path: string;
  let pricing: ServiceProcess;
  let client: PromiseClient<typeof PricingServiceService>;
  const shipped = JSON.parse(readFileSync(DEFAULT_CATALOG_PATH, 'utf8')) as { models: Array<{ id: string; output_usd_per_million_tokens: string }> };

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'pricing-catalog-'));
    path = join(folder, 'catalog.json');
    writeFileSync(path, JSON.stringify(shipped));
    pricing = await startService({ name: 'pricing', entry: ENTRY, env: { CATALOG_PATH: path } });
    client = createPromiseClient(PricingServiceService, { serviceName: 'pricing', address: pricing.address, deadlineMs: 5000 });
  });

  afterAll(async () => {
    client.close();
    await pricing.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  it('streams the list in force, then a new version when the catalog file changes its prices, which Price then answers with', async () => {
    const abort = new AbortController();
    const versions = client.watchPriceList({}, { signal: abort.signal })[Symbol.asyncIterator]();
    const nextList = async (): Promise<PriceList | undefined> => {
      const next = await versions.next();
      return next.done ? undefined : next.value.priceList;
    };
    const first = await nextList();
    const small = first?.models.find(({ model }) => model === 'sim-small');
    expect(first?.version).toMatch(/^sha256:[0-9a-f]{16}$/);
    expect(small).toBeDefined();
    expect((await client.price(priceRequest({}))).priceListVersion).toBe(first?.version);

    const changed = { ...shipped, models: shipped.models.map((model) => (model.id === 'sim-small' ? { ...model, output_usd_per_million_tokens: '123.00' } : model)) };
    writeFileSync(path, JSON.stringify(changed));
    const second = await nextList();
    expect(second?.version).not.toBe(first?.version);
    expect(second?.models.find(({ model }) => model === 'sim-small')?.outputMicrosPerMillionTokens).toBe('123000000');
    const priced = await client.price(priceRequest({ inputTokens: '0', outputTokens: '1000000' }));
    expect(priced).toMatchObject({ costMicros: '123000000', priceListVersion: second?.version });
    abort.abort();
    await expect(versions.next()).resolves.toMatchObject({ done: true });
  });
});

describe('pricing process with a broken catalog', () => {
  let folder: string;

  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'pricing-catalog-'));
  });

  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('exits non-zero naming the bad field', async () => {
    const catalog = JSON.parse(readFileSync(DEFAULT_CATALOG_PATH, 'utf8')) as { plans: Record<string, Record<string, unknown>> };
    const plan = catalog.plans.free;
    if (!plan) throw new Error('the shipped catalog has no free plan');
    plan.ceiling_tier = 'ultra';
    const path = join(folder, 'catalog.json');
    writeFileSync(path, JSON.stringify(catalog));
    const { code, output } = await runToExit(ENTRY, { CATALOG_PATH: path });
    expect(code).not.toBe(0);
    expect(output).toContain('plans.free.ceiling_tier: unknown tier ultra');
    expect(output).not.toContain('"listening"');
  });
});
