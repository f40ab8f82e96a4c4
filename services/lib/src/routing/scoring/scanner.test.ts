import fc from 'fast-check';
import { CODE_KEYWORDS, CODE_WORDS, LATEX_COMMANDS, MATH_WORDS, REASONING_CUES, type CodeShape, type MathKind, type ReasoningCue } from './lexicon';
import { SHAPE_BITS, scanForCues } from './scanner';
import { MATH_BITS, REASONING_BITS } from './word-table';

const shapesOf = (text: string): CodeShape[] =>
  (Object.entries(SHAPE_BITS) as Array<[CodeShape, number]>).filter(([, bit]) => (scanForCues(text).codeShapes & bit) !== 0).map(([shape]) => shape);
const mathOf = (text: string): MathKind[] =>
  (Object.entries(MATH_BITS) as Array<[MathKind, number]>).filter(([, bit]) => (scanForCues(text).mathKinds & bit) !== 0).map(([kind]) => kind);
const reasoningOf = (text: string): ReasoningCue[] =>
  (Object.keys(REASONING_CUES) as ReasoningCue[]).filter((cue) => (scanForCues(text).reasoning & (REASONING_BITS[cue] ?? 0)) !== 0);

describe('scanForCues: code', () => {
  it.each<[string, CodeShape[]]>([
    ['function total(items) {', ['definition', 'line_end']],
    ['def parse(row):', ['definition']],
    ['const answer = 42', ['declaration']],
    ['let x == y', []],
    ['items.map((item) => item.price)', ['arrow', 'method_call']],
    ['import { readFile } from "node:fs"', ['import']],
    ['  from collections import Counter', ['import']],
    ['#include <stdio.h>', ['import']],
    ['return total;', ['line_end']],
    ['if (ready) {  \n', ['line_end']],
    ['SELECT name FROM users', ['sql']],
    ['Traceback (most recent call last):', ['stack_trace']],
    ['    at parse (/app/src/index.js:10:5)', ['stack_trace']],
    ['console.log(total)', ['method_call']],
    ['<div class="card">', ['markup']],
    ['</span>', ['markup']],
  ])('finds the shape of %j', (text, shapes) => expect(shapesOf(text)).toEqual(shapes));

  it.each([
    'The function of the heart is to pump blood.',
    'Let me know when you are ready.',
    'Please select the best answer from the list.',
    'I imported the photos from my phone.',
    'Mr. Smith (the teacher) said hello.',
    'Is 3 < 5? Yes; 5 > 3.',
    'version 1.2(beta)',
  ])('finds no code shape in prose: %j', (text) => expect(shapesOf(text)).toEqual([]));

  it('finds code fences', () => {
    expect(scanForCues('```ts\nx\n```').fence).toBe(true);
    expect(scanForCues('~~~\nx\n~~~').fence).toBe(true);
    expect(scanForCues('a `short` quote').fence).toBe(false);
  });

  it('finds every programming word, in any case, and C++ / C# but not the letter c', () => {
    for (const word of CODE_WORDS) expect([word, scanForCues(`Tell me about ${word.toUpperCase()} please`).codeVocabulary]).toEqual([word, true]);
    expect(scanForCues('Is C++ faster?').codeVocabulary).toBe(true);
    expect(scanForCues('I like c#.').codeVocabulary).toBe(true);
    expect(scanForCues('Plan c is fine, and c+ is a grade.').codeVocabulary).toBe(false);
    expect(scanForCues('a functional approach').codeVocabulary).toBe(false);
  });

  it('reads keywords only in the case code uses', () => {
    expect(shapesOf('CONST x = 1')).toEqual([]);
    expect(shapesOf('select name from users')).toEqual([]);
    expect(CODE_KEYWORDS.sql).toEqual(['select', 'from']);
  });
});

describe('scanForCues: math', () => {
  it.each<[string, MathKind[]]>([
    ['\\frac{1}{2}', ['latex']],
    ['the area is $\\pi r^2$', ['latex', 'equation']],
    ['$$a$$', ['latex']],
    ['it costs $5 or $10', []],
    ['x^2', ['equation']],
    ['2x + 3 = 7', ['equation']],
    ['f(x) = 3', ['equation']],
    ['a ≤ b', ['equation']],
    ['∫ from 0 to 1', ['equation']],
    ['the derivative', ['vocabulary']],
    ['a vector space', ['vocabulary']],
    ['prove it', ['proof']],
    ['show that it holds', ['proof']],
    ['by induction on n', ['proof']],
    ['x = y + 1', []],
    ['count += 2', []],
    ['if (a == 2 + 3)', []],
    ['show me that', []],
  ])('finds the math in %j', (text, kinds) => expect(mathOf(text)).toEqual(kinds));

  it('knows every LaTeX command of the lexicon, and only after a backslash', () => {
    for (const command of LATEX_COMMANDS) expect([command, mathOf(`see \\${command}{x}`).includes('latex')]).toEqual([command, true]);
    expect(mathOf('the sum of the parts')).toEqual([]);
  });

  it('knows every math word and phrase of the lexicon', () => {
    for (const [kind, forms] of Object.entries(MATH_WORDS)) for (const form of forms) expect([form, mathOf(`We ${form} here.`)]).toEqual([form, [kind]]);
  });
});

describe('scanForCues: reasoning', () => {
  it('knows every form of every cue, and separates phrases by one space or hyphen only', () => {
    for (const [cue, forms] of Object.entries(REASONING_CUES)) {
      for (const form of forms) {
        expect([form, reasoningOf(`Please ${form} this.`)]).toEqual([form, [cue]]);
        expect([form, reasoningOf(`Please ${form.toUpperCase().replaceAll(' ', '-')} this.`)]).toEqual([form, [cue]]);
      }
    }
    expect(reasoningOf('step, by step')).toEqual([]);
    expect(reasoningOf('step  by step')).toEqual([]);
    expect(reasoningOf('in the depth')).toEqual([]);
  });

  it('does not match a cue inside a longer word', () => {
    expect(reasoningOf('whyever planet comparatively designer')).toEqual([]);
  });
});

describe('scanForCues: boundedness and safety', () => {
  // Inputs built to defeat naive look-aheads and look-behinds; each must still be read in one pass.
  const adversarial = [
    ' '.repeat(8192),
    '\n'.repeat(8192),
    '$'.repeat(8192),
    '$a^'.repeat(2730),
    'SELECT '.repeat(1170),
    'a.'.repeat(4096),
    'a.b('.repeat(2048),
    '<a '.repeat(2730),
    '='.repeat(8192),
    '1+'.repeat(4096),
    '\\'.repeat(8192),
    ':1:1)'.repeat(1638),
    'const '.repeat(1365),
    'a'.repeat(8192),
  ];

  it.each(adversarial.map((text) => [text.slice(0, 12), text] as const))('scans %j', (_label, text) => {
    expect(scanForCues(text)).toEqual(scanForCues(text));
  });

  it('never throws, whatever the text', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => void scanForCues(text)));
  });
});
