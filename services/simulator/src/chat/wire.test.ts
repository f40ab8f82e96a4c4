import fc from 'fast-check';
import { splitWords } from './wire';

describe('splitWords', () => {
  it('loses nothing', () => {
    fc.assert(fc.property(fc.string(), fc.integer({ min: 1, max: 6 }), (text, words) => expect(splitWords(text, words).join('')).toBe(text)));
  });

  it('puts a few words in each piece', () => {
    expect(splitWords('a b c d e f g h i', 4)).toEqual(['a b c d ', 'e f g h ', 'i']);
  });
});
