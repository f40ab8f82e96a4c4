import { loadCatalog } from '../catalog';
import { DomainError } from '../errors';
import { priceBookFromCatalog } from './price-book';
import { priceBookFromMessage, priceListMessage } from './price-list-message';

describe('the price list on the wire', () => {
  const shipped = priceBookFromCatalog(loadCatalog());

  it('comes back as the same price book, same version', () => {
    expect(priceBookFromMessage(priceListMessage(shipped))).toEqual(shipped);
  });

  it('is refused when its content does not hash to the version it claims', () => {
    const message = priceListMessage(shipped);
    const [first] = message.models;
    if (!first) throw new Error('the shipped catalog has models');
    first.outputMicrosPerMillionTokens = '1';
    expect(() => priceBookFromMessage(message)).toThrow(DomainError);
  });

  it('is refused, naming the field, when a price is not a whole number of micro-dollars', () => {
    const message = priceListMessage(shipped);
    const [first] = message.models;
    if (!first) throw new Error('the shipped catalog has models');
    first.inputMicrosPerMillionTokens = '1.5';
    expect(() => priceBookFromMessage(message)).toThrow(/models\.0\.input_micros_per_million_tokens/);
  });
});
