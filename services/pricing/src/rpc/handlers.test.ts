import { Writable } from 'node:stream';
import { Metadata } from '@grpc/grpc-js';
import { loadCatalog } from '@gateway/lib/catalog';
import { DomainError } from '@gateway/lib/errors';
import { createLogger } from '@gateway/lib/logging';
import { BaselineReason, type PriceRequest } from '@gateway/proto/gen/gateway/pricing/v1/pricing';
import { priceListSource } from '../pricing/price-list';
import { pricingHandlers } from './handlers';

const silent = createLogger({ service: 'test', destination: new Writable({ write: (_chunk, _encoding, done) => done() }) });
const catalog = loadCatalog();
const handlers = pricingHandlers({ prices: priceListSource(catalog), logger: silent });
const context = { metadata: new Metadata(), deadline: Infinity };

const request = (overrides: Partial<PriceRequest>): PriceRequest => ({
  servedModel: 'sim-small',
  requestedModel: 'auto',
  planTier: 'simulated',
  inputTokens: '1000',
  outputTokens: '500',
  tier: 'simple',
  ...overrides,
});

async function rejection(overrides: Partial<PriceRequest>): Promise<DomainError> {
  const error = await handlers.price(request(overrides), context).catch((caught: unknown) => caught);
  if (!(error instanceof DomainError)) throw new Error(`expected a DomainError, got ${String(error)}`);
  return error;
}

describe('Price handler', () => {
  it('answers with decimal-string amounts and the proto baseline reason', async () => {
    const response = await handlers.price(request({}), context);
    expect(response).toMatchObject({ priced: true, baseline: { model: 'sim-reasoning', reason: BaselineReason.BASELINE_REASON_PLAN_CEILING } });
    expect(response.costMicros).toMatch(/^\d+$/);
    expect(BigInt(response.savingsMicros)).toBe(BigInt(response.baseline?.costMicros ?? 'x') - BigInt(response.costMicros));
  });

  it('leaves the baseline out when there is none', async () => {
    const response = await handlers.price(request({ servedModel: 'not-in-catalog' }), context);
    expect(response).toEqual({ priced: false, costMicros: '0', baseline: undefined, savingsMicros: '0', savingsEstimatePct: 90, priceListVersion: expect.stringMatching(/^sha256:/) });
  });

  it.each([
    ['input_tokens', { inputTokens: '-1' }, 'input_tokens: must be a whole number of tokens, 0 or more'],
    ['output_tokens', { outputTokens: '1.5' }, 'output_tokens: must be a whole number of tokens, 0 or more'],
    ['output_tokens', { outputTokens: '' }, 'output_tokens: must be a whole number of tokens, 0 or more'],
    ['input_tokens', { inputTokens: '1000000000001' }, 'input_tokens: must be at most 1000000000000 tokens'],
    ['served_model', { servedModel: '' }, 'served_model: is required'],
  ])('rejects a bad %s naming the field', async (field, overrides, message) => {
    await expect(rejection(overrides)).resolves.toMatchObject({ kind: 'validation', field, message });
  });
});

describe('ListModels handler', () => {
  it('returns every catalog model with micro-dollar prices and the prices date', async () => {
    const response = await handlers.listModels({}, context);
    expect(response.pricesAsOf).toBe(catalog.pricesAsOf);
    expect(response.models.map(({ id }) => id)).toEqual([...catalog.models.keys()]);
    for (const listed of response.models) {
      const model = catalog.models.get(listed.id);
      expect(listed).toEqual({
        id: model?.id,
        provider: model?.provider,
        tier: model?.tier,
        inputMicrosPerMillionTokens: model?.inputMicrosPerMillion.toString(),
        outputMicrosPerMillionTokens: model?.outputMicrosPerMillion.toString(),
        contextWindow: model?.contextWindow,
        unsupportedParams: [...(model?.unsupportedParams ?? [])],
      });
    }
  });
});
