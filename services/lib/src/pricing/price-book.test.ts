import { loadCatalog } from '../catalog';
import { priceBook, priceBookFromCatalog } from './price-book';

describe('priceBookVersion', () => {
  const shipped = priceBookFromCatalog(loadCatalog());

  it('is the same for the same prices, whatever the order they were listed in', () => {
    const reordered = priceBook({ ...shipped, models: new Map([...shipped.models.entries()].reverse()), plans: new Map([...shipped.plans.entries()].reverse()) });
    expect(reordered.version).toBe(shipped.version);
  });

  it('changes when any one price changes', () => {
    const [id, price] = [...shipped.models.entries()][0] ?? [];
    if (!id || !price) throw new Error('the shipped catalog has models');
    const cheaper = priceBook({ ...shipped, models: new Map([...shipped.models, [id, { ...price, outputMicrosPerMillion: price.outputMicrosPerMillion - 1n }]]) });
    expect(cheaper.version).not.toBe(shipped.version);
    expect(cheaper.version).toMatch(/^sha256:[0-9a-f]{16}$/);
  });
});
