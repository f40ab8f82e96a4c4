import { loadCatalog, parseCatalog, type CatalogFile } from '../catalog';
import { DomainError } from '../errors';
import fc from 'fast-check';
import { costMicros } from './cost';
import { priceRequest, type PriceInput } from './price';
import { priceBookFromCatalog } from './price-book';

const model = (id: string, tier: string, inputUsd: string, outputUsd: string) => ({
  id,
  provider: 'test',
  tier,
  input_usd_per_million_tokens: inputUsd,
  output_usd_per_million_tokens: outputUsd,
  context_window: 1000,
  unsupported_params: [],
});

const fixture: CatalogFile = {
  version: 'test',
  prices_as_of: '2025-09-01',
  tiers: ['simple', 'standard', 'complex', 'reasoning'],
  providers: { test: { base_url: 'http://127.0.0.1:1/v1', api_key_env: 'TEST_KEY' } },
  models: [
    model('tiny', 'simple', '0.10', '0.40'),
    model('mid', 'standard', '0.40', '1.60'),
    model('big', 'complex', '2.00', '8.00'),
    model('pricey', 'complex', '15.00', '75.00'),
  ],
  plans: {
    low: {
      description: 'up to standard',
      meter: 'spend',
      monthly_allowance_usd: '1.00',
      byok_requests_per_month: 10,
      ceiling_tier: 'standard',
      tier_models: { simple: 'tiny', standard: 'mid' },
      savings_estimate_pct: { simple: 70, standard: 0 },
    },
    high: {
      description: 'up to complex',
      meter: 'spend',
      monthly_allowance_usd: '10.00',
      byok_requests_per_month: 10,
      ceiling_tier: 'complex',
      tier_models: { simple: 'tiny', standard: 'mid', complex: 'big' },
      savings_estimate_pct: { simple: 85, standard: 60, complex: 0 },
    },
  },
};
const catalog = parseCatalog(fixture);
const book = priceBookFromCatalog(catalog);
const modelOf = (id: string) => {
  const found = catalog.models.get(id);
  if (!found) throw new Error(`fixture lacks ${id}`);
  return found;
};

const input = (overrides: Partial<PriceInput>): PriceInput => ({
  servedModel: 'tiny',
  requestedModel: 'auto',
  planTier: 'high',
  inputTokens: 1000n,
  outputTokens: 500n,
  tier: 'simple',
  ...overrides,
});

describe('priceRequest', () => {
  it('prices auto against the plan ceiling model', () => {
    // tiny: 1000 x 0.10 + 500 x 0.40 = 300 micro-dollars; big: 1000 x 2 + 500 x 8 = 6000.
    expect(priceRequest(book, input({}))).toEqual({
      priced: true,
      costMicros: 300n,
      baseline: { model: 'big', reason: 'plan_ceiling', costMicros: 6000n },
      savingsMicros: 5700n,
      savingsEstimatePct: 85,
    });
  });

  it('makes a named model served as-is its own baseline, saving nothing', () => {
    expect(priceRequest(book, input({ servedModel: 'mid', requestedModel: 'mid', tier: 'standard' }))).toEqual({
      priced: true,
      costMicros: 1200n,
      baseline: { model: 'mid', reason: 'named', costMicros: 1200n },
      savingsMicros: 0n,
      savingsEstimatePct: 60,
    });
  });

  it('measures a named model above the ceiling, served by the ceiling model, against the named one', () => {
    const result = priceRequest(book, input({ servedModel: 'mid', requestedModel: 'big', planTier: 'low', tier: 'standard' }));
    expect(result).toMatchObject({ costMicros: 1200n, baseline: { model: 'big', reason: 'named', costMicros: 6000n }, savingsMicros: 4800n });
  });

  it('reports a negative saving truthfully when the served model costs more than the baseline', () => {
    // A bound agent record's model may cost more than the plan ceiling's model.
    const result = priceRequest(book, input({ servedModel: 'pricey', requestedModel: 'auto' }));
    expect(result).toMatchObject({ costMicros: 52_500n, baseline: { model: 'big', reason: 'plan_ceiling', costMicros: 6000n }, savingsMicros: -46_500n });
  });

  it('is unpriced, with no baseline, when the served model is not in the catalog', () => {
    expect(priceRequest(book, input({ servedModel: 'retired-model', requestedModel: 'retired-model' }))).toEqual({
      priced: false,
      costMicros: 0n,
      baseline: undefined,
      savingsMicros: 0n,
      savingsEstimatePct: 85,
    });
  });

  it('has no baseline for a requested model the catalog does not know', () => {
    expect(priceRequest(book, input({ requestedModel: 'gpt-9' }))).toMatchObject({ priced: true, costMicros: 300n, baseline: undefined, savingsMicros: 0n });
  });

  it('gives no savings estimate for a tier the plan has none for', () => {
    expect(priceRequest(book, input({ planTier: 'low', tier: 'complex' })).savingsEstimatePct).toBe(0);
    expect(priceRequest(book, input({ tier: '' })).savingsEstimatePct).toBe(0);
  });

  it('treats an unknown plan as a data error: internal, with the reason for the logs only', () => {
    let caught: unknown;
    try {
      priceRequest(book, input({ planTier: 'platinum' }));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DomainError);
    expect(caught).toMatchObject({ kind: 'internal', internalReason: `plan tier "platinum" is not in price list ${book.version}` });
    expect((caught as DomainError).message).not.toContain('platinum');
  });

  it('always reports savings = baseline cost - cost, both priced on the same tokens', () => {
    const ids = ['tiny', 'mid', 'big', 'pricey'];
    const tokens = fc.bigInt({ min: 0n, max: 10n ** 9n });
    fc.assert(
      fc.property(fc.constantFrom(...ids), fc.constantFrom('auto', ...ids), fc.constantFrom('low', 'high'), tokens, tokens, (served, requested, planTier, inputTokens, outputTokens) => {
        const result = priceRequest(book, input({ servedModel: served, requestedModel: requested, planTier, inputTokens, outputTokens }));
        const baseline = result.baseline;
        if (!baseline) throw new Error('every catalog model and auto have a baseline');
        expect(result.costMicros).toBe(costMicros(modelOf(served), { inputTokens, outputTokens }));
        expect(baseline.costMicros).toBe(costMicros(modelOf(baseline.model), { inputTokens, outputTokens }));
        expect(result.savingsMicros).toBe(baseline.costMicros - result.costMicros);
        expect(baseline.reason).toBe(requested === 'auto' ? 'plan_ceiling' : 'named');
        if (served === requested) expect(result.savingsMicros).toBe(0n);
      }),
    );
  });
});

describe('the shipped catalog', () => {
  it('prices every model, and every plan has a ceiling model for auto baselines', () => {
    const shipped = loadCatalog();
    for (const [planTier, plan] of shipped.plans) {
      for (const id of shipped.models.keys()) {
        const result = priceRequest(priceBookFromCatalog(shipped), input({ servedModel: id, requestedModel: 'auto', planTier, tier: plan.ceilingTier }));
        expect([planTier, id, result.priced, result.baseline?.model]).toEqual([planTier, id, true, plan.tierModels.get(plan.ceilingTier)]);
      }
    }
  });
});
