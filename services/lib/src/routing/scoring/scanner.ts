import { CODE_SHAPES, type CodeShape } from './lexicon';
import { HASH_SEED, LATEX, MATH_BITS, WORDS, hashStep, type WordEntry } from './word-table';

/**
 * One pass over the scanned text that finds every cue the score uses: words
 * and phrases of the lexicon, and the shapes of code and math. Written as a
 * plain loop over character codes: regular expressions with this many
 * alternatives cost tens of times more per character, and the loop never
 * allocates per word. Every look-ahead or look-behind is bounded by the line
 * or by a small constant, so the pass is linear in the (already bounded) text.
 */

export interface CueFindings {
  /** A fenced block (``` or ~~~). */
  fence: boolean;
  /** Bits of SHAPE_BITS. */
  codeShapes: number;
  codeVocabulary: boolean;
  /** Bits of MATH_BITS. */
  mathKinds: number;
  /** Bits of REASONING_BITS. */
  reasoning: number;
}

export const SHAPE_BITS = Object.fromEntries(CODE_SHAPES.map((shape, index) => [shape, 1 << index])) as Record<CodeShape, number>;

// Local copies: an imported binding is read through a getter on every use, too slow for a per-letter step.
const wordSeed = HASH_SEED;
const step = hashStep;
const words = WORDS;
const latex = LATEX;

const TAB = 9;
const NEWLINE = 10;
const CARRIAGE_RETURN = 13;
const SPACE = 32;
const HASH_SIGN = 35;
const DOLLAR = 36;
const OPEN_PAREN = 40;
const CLOSE_PAREN = 41;
const ASTERISK = 42;
const PLUS = 43;
const HYPHEN = 45;
const DOT = 46;
const COLON = 58;
const SEMICOLON = 59;
const LESS_THAN = 60;
const EQUALS = 61;
const GREATER_THAN = 62;
const BACKSLASH = 92;
const CLOSE_BRACKET = 93;
const CARET = 94;
const UNDERSCORE = 95;
const BACKTICK = 96;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const TILDE = 126;
const SLASH = 47;

/** ∂ ∏ ∑ √ ∞ ∫ ≈ ≠ ≤ ≥ */
const MATH_SYMBOLS = new Set([0x2202, 0x220f, 0x2211, 0x221a, 0x221e, 0x222b, 0x2248, 0x2260, 0x2264, 0x2265]);
/** How far a `$ ... $` pair may span, and how far SELECT may be from FROM. */
const INLINE_MATH_SPAN = 160;
const SQL_SPAN = 200;
const MARKUP_SPAN = 200;
/** How far back from `=` an arithmetic expression is read. */
const EQUATION_LOOKBACK = 24;

const isLetter = (code: number) => (code | 0x20) >= 97 && (code | 0x20) <= 122;
const isDigit = (code: number) => code >= 48 && code <= 57;
const isIdentifier = (code: number) => isLetter(code) || isDigit(code) || code === UNDERSCORE || code === DOLLAR;
const isBlank = (code: number) => code === SPACE || code === TAB;
const isLineEnd = (code: number) => code === NEWLINE || code === CARRIAGE_RETURN || Number.isNaN(code);
const isOperator = (code: number) => code === PLUS || code === HYPHEN || code === ASTERISK || code === SLASH;
const codesOf = (characters: string) => new Set([...characters].map((character) => character.charCodeAt(0)));
/** Characters that make `=` part of a compound operator (==, !=, <=, +=, :=, ...). */
const COMPOUND_OPERATOR = codesOf('=!<>+-*/%&|^:');
/** What may follow `import ` and friends: a name, a quoted path, `*`, `{`, `@scope`, `<header>`, `./x`. */
const IMPORTED = codesOf(`"'*/<@{.`);

function repeats(text: string, at: number, code: number, times: number): boolean {
  for (let offset = 0; offset < times; offset += 1) if (text.charCodeAt(at + offset) !== code) return false;
  return true;
}

/** After a keyword ending at `end`: blanks, a name, blanks, then `expected` (not followed by `=` when it is `=`). */
function nameThen(text: string, end: number, expected: number): boolean {
  let index = end;
  if (!isBlank(text.charCodeAt(index))) return false;
  while (isBlank(text.charCodeAt(index))) index += 1;
  const nameStart = index;
  while (isIdentifier(text.charCodeAt(index))) index += 1;
  if (index === nameStart) return false;
  while (isBlank(text.charCodeAt(index))) index += 1;
  if (text.charCodeAt(index) !== expected) return false;
  return expected !== EQUALS || text.charCodeAt(index + 1) !== EQUALS;
}

/** `;`, `{` or `}` with nothing but blanks after it on its line. */
function endsLine(text: string, at: number): boolean {
  let index = at + 1;
  while (isBlank(text.charCodeAt(index))) index += 1;
  return isLineEnd(text.charCodeAt(index));
}

/** `.name(` after an identifier or a closing bracket. */
function isMethodCall(text: string, dot: number): boolean {
  const before = text.charCodeAt(dot - 1);
  if (!isIdentifier(before) && before !== CLOSE_PAREN && before !== CLOSE_BRACKET) return false;
  let index = dot + 1;
  const first = text.charCodeAt(index);
  if (!isLetter(first) && first !== UNDERSCORE) return false;
  while (isIdentifier(text.charCodeAt(index))) index += 1;
  return text.charCodeAt(index) === OPEN_PAREN;
}

/** `<tag>`, `</tag>` or `<tag attributes>` on one line. */
function isMarkup(text: string, open: number): boolean {
  let index = open + 1;
  if (text.charCodeAt(index) === SLASH) index += 1;
  if (!isLetter(text.charCodeAt(index))) return false;
  while (isLetter(text.charCodeAt(index)) || isDigit(text.charCodeAt(index)) || text.charCodeAt(index) === HYPHEN) index += 1;
  const after = text.charCodeAt(index);
  if (after === GREATER_THAN) return true;
  if (!isBlank(after)) return false;
  const limit = Math.min(text.length, index + MARKUP_SPAN);
  for (; index < limit; index += 1) {
    const code = text.charCodeAt(index);
    if (code === GREATER_THAN) return true;
    if (code === LESS_THAN || code === NEWLINE) return false;
  }
  return false;
}

/** `:10:5)` — the file location of a stack frame. */
function isFrameLocation(text: string, close: number): boolean {
  let index = close - 1;
  for (let group = 0; group < 2; group += 1) {
    const digitsEnd = index;
    while (index >= 0 && isDigit(text.charCodeAt(index))) index -= 1;
    if (index === digitsEnd || text.charCodeAt(index) !== COLON) return false;
    index -= 1;
  }
  return true;
}

/** `^` between an operand and an exponent: x^2, e^{-x}, (a+b)^n. */
function isExponent(text: string, caret: number): boolean {
  const before = text.charCodeAt(caret - 1);
  const after = text.charCodeAt(caret + 1);
  return (isIdentifier(before) || before === CLOSE_PAREN || before === CLOSE_BRACE) && (isIdentifier(after) || after === OPEN_BRACE || after === OPEN_PAREN);
}

/**
 * `=` ending an arithmetic expression (2x + 3 = 7) or a function definition
 * in math notation (f(x) = ...). Compound operators (==, =>, +=, <=, ...) are
 * not equations.
 */
function isEquation(text: string, equals: number): boolean {
  const next = text.charCodeAt(equals + 1);
  if (next === EQUALS || next === GREATER_THAN) return false;
  let index = equals - 1;
  if (COMPOUND_OPERATOR.has(text.charCodeAt(index))) return false;
  while (index >= 0 && isBlank(text.charCodeAt(index))) index -= 1;
  // f(x) =
  if (
    text.charCodeAt(index) === CLOSE_PAREN &&
    isLetter(text.charCodeAt(index - 1)) &&
    text.charCodeAt(index - 2) === OPEN_PAREN &&
    isLetter(text.charCodeAt(index - 3)) &&
    !isIdentifier(text.charCodeAt(index - 4))
  ) {
    return true;
  }
  let operator = false;
  let digit = false;
  const limit = Math.max(0, equals - EQUATION_LOOKBACK);
  for (; index >= limit; index -= 1) {
    const code = text.charCodeAt(index);
    if (isDigit(code)) digit = true;
    else if (isOperator(code)) operator = true;
    else if (!(isLetter(code) || isBlank(code) || code === DOT || code === OPEN_PAREN || code === CLOSE_PAREN || code === CARET)) break;
  }
  return operator && digit;
}

/** Everything the scanner carries from one character to the next. */
class Scan {
  fence = false;
  codeShapes = 0;
  codeVocabulary = false;
  mathKinds = 0;
  reasoning = 0;

  /** Only blanks so far on this line (for import lines). */
  blankLine = true;
  /** The word follows a backslash (a LaTeX command). */
  afterBackslash = false;
  /** The last word and the one before it, when they were separated by one space or hyphen (phrases). */
  lastEntry: WordEntry | undefined = undefined;
  lastButOneEntry: WordEntry | undefined = undefined;
  lastWordEnd = -2;
  /** The last `$` on this line and whether a LaTeX-only character (\ ^ _) followed it. */
  dollar = -1;
  dollarHasTex = false;
  /** End of the last upper-case SELECT. */
  selectEnd = -1;

  constructor(readonly text: string) {}

  findings(): CueFindings {
    return { fence: this.fence, codeShapes: this.codeShapes, codeVocabulary: this.codeVocabulary, mathKinds: this.mathKinds, reasoning: this.reasoning };
  }

  /** A run of ASCII letters from `start` to `end`, with its hash. */
  word(start: number, end: number, hash: number): void {
    const { text } = this;
    const length = end - start;
    const startsLine = this.blankLine;
    this.blankLine = false;
    if (this.afterBackslash) {
      if (latex(hash, text, start, length)) this.mathKinds |= MATH_BITS.latex;
      this.afterBackslash = false;
    }
    const entry = words(hash, text, start, length);
    if (!entry) {
      // An unknown word breaks every phrase.
      this.lastEntry = undefined;
      this.lastWordEnd = end;
      return;
    }
    const separator = text.charCodeAt(start - 1);
    const adjacent = start - this.lastWordEnd === 1 && (separator === SPACE || separator === HYPHEN);
    const previous = adjacent ? this.lastEntry : undefined;
    const beforePrevious = adjacent ? this.lastButOneEntry : undefined;
    this.reasoning |= entry.reasoning;
    this.mathKinds |= entry.math;
    this.codeVocabulary ||= entry.codeVocabulary;
    for (const phrase of entry.phraseEnds) {
      const [first, second] = phrase.earlier;
      const matches = phrase.earlier.length === 1 ? previous === first : beforePrevious === first && previous === second;
      if (!matches) continue;
      this.reasoning |= phrase.reasoning;
      this.mathKinds |= phrase.math;
      this.codeVocabulary ||= phrase.codeVocabulary;
    }
    if (entry.keywords.size > 0) this.keyword(entry, start, end, startsLine);
    this.lastButOneEntry = previous;
    this.lastEntry = entry;
    this.lastWordEnd = end;
  }

  keyword(entry: WordEntry, start: number, end: number, startsLine: boolean): void {
    const { text } = this;
    const lowerCase = text.startsWith(entry.word, start);
    for (const keyword of entry.keywords) {
      switch (keyword) {
        case 'definition':
          if (lowerCase && nameThen(text, end, OPEN_PAREN)) this.codeShapes |= SHAPE_BITS.definition;
          break;
        case 'declaration':
          if (lowerCase && nameThen(text, end, EQUALS)) this.codeShapes |= SHAPE_BITS.declaration;
          break;
        case 'import': {
          const next = text.charCodeAt(end);
          const afterBlanks = text.charCodeAt(end + 1);
          if (lowerCase && startsLine && isBlank(next) && (isIdentifier(afterBlanks) || IMPORTED.has(afterBlanks))) {
            this.codeShapes |= SHAPE_BITS.import;
          }
          break;
        }
        case 'sql':
          if (text.startsWith('SELECT', start)) this.selectEnd = end;
          else if (text.startsWith('FROM', start) && this.selectEnd >= 0 && start - this.selectEnd <= SQL_SPAN) this.codeShapes |= SHAPE_BITS.sql;
          break;
        case 'traceback':
          if (text.startsWith(' (most recent call last)', end)) this.codeShapes |= SHAPE_BITS.stack_trace;
          break;
        case 'language_c': {
          const plusPlus = repeats(text, end, PLUS, 2);
          const after = text.charCodeAt(end + (plusPlus ? 2 : 1));
          if ((plusPlus || text.charCodeAt(end) === HASH_SIGN) && !isIdentifier(after)) this.codeVocabulary = true;
          break;
        }
      }
    }
  }

  symbol(code: number, index: number): void {
    const { text } = this;
    switch (code) {
      case NEWLINE:
        this.blankLine = true;
        this.dollar = -1;
        return;
      case CARRIAGE_RETURN:
        return;
      case BACKTICK:
      case TILDE:
        if (repeats(text, index, code, 3)) this.fence = true;
        break;
      case EQUALS:
        if (text.charCodeAt(index + 1) === GREATER_THAN) this.codeShapes |= SHAPE_BITS.arrow;
        else if (isEquation(text, index)) this.mathKinds |= MATH_BITS.equation;
        break;
      case SEMICOLON:
      case OPEN_BRACE:
      case CLOSE_BRACE:
        if (endsLine(text, index)) this.codeShapes |= SHAPE_BITS.line_end;
        break;
      case DOT:
        if (isMethodCall(text, index)) this.codeShapes |= SHAPE_BITS.method_call;
        break;
      case LESS_THAN:
        if (isMarkup(text, index)) this.codeShapes |= SHAPE_BITS.markup;
        break;
      case CLOSE_PAREN:
        if (isFrameLocation(text, index)) this.codeShapes |= SHAPE_BITS.stack_trace;
        break;
      case HASH_SIGN:
        if (this.blankLine && text.startsWith('include', index + 1)) this.codeShapes |= SHAPE_BITS.import;
        break;
      case BACKSLASH:
        this.afterBackslash = isLetter(text.charCodeAt(index + 1));
        if (this.dollar >= 0) this.dollarHasTex = true;
        break;
      case CARET:
        if (isExponent(text, index)) this.mathKinds |= MATH_BITS.equation;
        if (this.dollar >= 0) this.dollarHasTex = true;
        break;
      case UNDERSCORE:
        if (this.dollar >= 0) this.dollarHasTex = true;
        break;
      case DOLLAR:
        if (text.charCodeAt(index + 1) === DOLLAR || (this.dollar >= 0 && this.dollarHasTex && index - this.dollar <= INLINE_MATH_SPAN)) {
          this.mathKinds |= MATH_BITS.latex;
        }
        this.dollar = index;
        this.dollarHasTex = false;
        break;
      default:
        if (code > 0x2200 && MATH_SYMBOLS.has(code)) this.mathKinds |= MATH_BITS.equation;
    }
    this.blankLine = false;
  }
}

/** ASCII characters that Scan.symbol acts on; every other one only ends a blank line prefix. */
const SIGNIFICANT = new Uint8Array(128);
for (const code of [NEWLINE, CARRIAGE_RETURN, BACKTICK, TILDE, EQUALS, SEMICOLON, OPEN_BRACE, CLOSE_BRACE, DOT, LESS_THAN, CLOSE_PAREN, HASH_SIGN, BACKSLASH, CARET, UNDERSCORE, DOLLAR]) {
  SIGNIFICANT[code] = 1;
}

export function scanForCues(text: string): CueFindings {
  const scan = new Scan(text);
  const { length } = text;
  let index = 0;
  while (index < length) {
    let code = text.charCodeAt(index);
    if (!isLetter(code)) {
      if (code >= 128 || SIGNIFICANT[code] === 1) scan.symbol(code, index);
      else if (code !== SPACE && code !== TAB) scan.blankLine = false;
      index += 1;
      continue;
    }
    const start = index;
    let hash = wordSeed;
    do {
      hash = step(hash, code | 0x20);
      index += 1;
      code = text.charCodeAt(index);
    } while (index < length && isLetter(code));
    scan.word(start, index, hash);
  }
  return scan.findings();
}
