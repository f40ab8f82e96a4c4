import fc from 'fast-check';
import { answerText, applyStop } from './text';

describe('answerText', () => {
  it('is a function of its key', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.option(fc.integer(), { nil: undefined }), fc.nat(10), (model, prompt, seed, choiceIndex) => {
        const key = { model, prompt, seed, choiceIndex };
        expect(answerText(key)).toBe(answerText({ ...key }));
      }),
    );
  });

  it('gives two to six sentences', () => {
    fc.assert(
      fc.property(fc.string(), (prompt) => {
        const sentences = answerText({ model: 'm', prompt, seed: undefined, choiceIndex: 0 }).split(/(?<=\.) /);
        expect(sentences.length).toBeGreaterThanOrEqual(2);
        expect(sentences.length).toBeLessThanOrEqual(6);
      }),
    );
  });
});

describe('applyStop', () => {
  it('cuts before the earliest stop sequence', () => {
    expect(applyStop('one two three two', [' three', 'two'])).toEqual({ text: 'one ', stopped: true });
    expect(applyStop('one two', 'zzz')).toEqual({ text: 'one two', stopped: false });
    expect(applyStop('one two', null)).toEqual({ text: 'one two', stopped: false });
  });
});
