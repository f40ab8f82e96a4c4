import { isStorableText, storableText } from './storable-text';

describe('storable text', () => {
  it.each(['', 'auto', 'naïve 东京 😀', '\ud83d\ude00 paired', 'line\nbreak\ttab'])('accepts %p', (text) => {
    expect(isStorableText(text)).toBe(true);
  });

  it.each([
    ['a NUL', 'auto\u0000'],
    ['a lone high surrogate', 'a\ud800b'],
    ['a lone high surrogate at the end', 'a\ud83d'],
    ['a lone low surrogate', '\ude00a'],
    ['two high surrogates', '\ud83d\ud83d\ude00'],
  ])('refuses %s', (_label, text) => {
    expect(isStorableText(text)).toBe(false);
  });

  it('refuses in a schema with a message that says what is allowed, and keeps chained checks', () => {
    const schema = storableText().trim().min(1);
    expect(schema.safeParse(' model ').data).toBe('model');
    expect(schema.safeParse('auto\u0000').error?.issues[0]?.message).toMatch(/NUL/);
    expect(schema.safeParse('  ').success).toBe(false);
  });
});
