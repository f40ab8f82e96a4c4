import fc from 'fast-check';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { countTextTokens, MAX_PIECE_LENGTH, textPieces, truncateToTokens } from './tokens';

const wholeTextCount = (text: string) => countTokens(text, { disallowedSpecial: new Set<string>() });

describe('token counting', () => {
  it('encodes in bounded pieces that make up the text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 3000 }), fc.string({ unit: 'grapheme', maxLength: 2000 }), (ascii, unicode) => {
        for (const text of [ascii, unicode, 'x'.repeat(MAX_PIECE_LENGTH * 3 + 1)]) {
          const pieces = [...textPieces(text)];
          expect(pieces.join('')).toBe(text);
          for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(MAX_PIECE_LENGTH);
        }
      }),
    );
  });

  it('counts text of ordinary words exactly as the encoder does on the whole text', () => {
    const word = fc.constantFrom('hello', 'World', 'the', '42', 'it\'s', '...', '\n', '  ', 'naïve', '东京', '😀', ',', '(x)');
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 800 }).map((words) => words.join(' ')), (text) => {
        expect(countTextTokens(text)).toBe(wholeTextCount(text));
      }),
      { numRuns: 50 },
    );
  });

  it('counts a megabyte run of one character', () => {
    // Eight of these characters are one token in o200k_base; pieces are a multiple of eight long.
    const run = 'a'.repeat(1 << 20);
    expect(countTextTokens(run)).toBe((1 << 20) / 8);
    const truncated = truncateToTokens(run, 1000);
    expect(truncated).toEqual({ text: 'a'.repeat(8000), tokens: 1000 });
  });

  it('never cuts a surrogate pair', () => {
    const emoji = '😀'.repeat(MAX_PIECE_LENGTH);
    for (const piece of textPieces(emoji)) expect(piece).toMatch(/^(?:😀)+$/u);
  });
});
