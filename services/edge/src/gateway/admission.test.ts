import { loadCatalog, worstCaseOf } from '@gateway/lib/catalog';
import { priceBook, priceBookFromCatalog } from '@gateway/lib/pricing';
import { leaseUsage, meterOf, worstCaseFor } from './admission';

const catalog = loadCatalog();
const [model] = catalog.models.values();
if (!model) throw new Error('the catalog has no model');
const body = { messages: [{ role: 'user', content: 'Say hello.' }], max_tokens: 100 };

describe('admission by worst-case cost', () => {
  it('prices the worst case from the catalog until a price list is held', () => {
    expect(worstCaseFor(catalog.models, undefined, model.id, body)).toEqual(worstCaseOf(body, model));
  });

  it('prices it from the held price list once there is one, so a new version changes admission without a restart', () => {
    const listed = priceBookFromCatalog(catalog);
    const doubled = priceBook({
      ...listed,
      models: new Map([[model.id, { inputMicrosPerMillion: model.inputMicrosPerMillion * 2n, outputMicrosPerMillion: model.outputMicrosPerMillion * 2n }]]),
    });
    const before = worstCaseFor(catalog.models, listed, model.id, body);
    const after = worstCaseFor(catalog.models, doubled, model.id, body);
    expect(after.inputTokens).toBe(before.inputTokens);
    expect(after.outputTokens).toBe(before.outputTokens);
    const atDoubled = (BigInt(before.inputTokens) * model.inputMicrosPerMillion * 2n + BigInt(before.outputTokens) * model.outputMicrosPerMillion * 2n + 999_999n) / 1_000_000n;
    expect(after.costMicros).toBe(atDoubled);
  });

  it('keeps the catalog prices of a model the held list does not name', () => {
    const empty = priceBook({ ...priceBookFromCatalog(catalog), models: new Map() });
    expect(worstCaseFor(catalog.models, empty, model.id, body)).toEqual(worstCaseOf(body, model));
  });

  it('refuses a served model missing from the catalog as a deployment out of step', () => {
    expect(() => worstCaseFor(catalog.models, undefined, 'no-such-model', body)).toThrow(/cannot price the served model/);
  });

  it('names the meter a leased subject counts on', () => {
    const meters = new Map([['pro', 'spend' as const]]);
    const subject = { organizationId: 'o', agentId: '', planTier: 'pro', byok: false, messagesLimit: '0', enforce: true };
    expect(meterOf(meters, subject)).toBe('spend');
    expect(meterOf(meters, { ...subject, byok: true })).toBe('requests');
    expect(meterOf(meters, { ...subject, planTier: 'gone' })).toBeUndefined();
    // A plan edge's catalog lacks is not leased, BYOK or not: the call keeps a reservation of its own.
    expect(meterOf(meters, { ...subject, planTier: 'gone', byok: true })).toBeUndefined();
  });

  it('counts a call on its lease as the ledger counts it', () => {
    expect(leaseUsage('spend', { consumed: true, priced: true, costMicros: 42n })).toBe(42n);
    expect(leaseUsage('spend', { consumed: true, priced: false, costMicros: 0n })).toBe(0n);
    expect(leaseUsage('spend', { consumed: false, priced: true, costMicros: 42n })).toBe(0n);
    expect(leaseUsage('requests', { consumed: true, priced: false, costMicros: 0n })).toBe(1n);
    expect(leaseUsage('legacy', { consumed: false, priced: false, costMicros: 0n })).toBe(0n);
  });
});
