import {
  CODE_KEYWORDS,
  CODE_WORDS,
  LATEX_COMMANDS,
  MATH_KIND_NAMES,
  MATH_WORDS,
  REASONING_CUES,
  type CodeKeyword,
  type MathKind,
} from './lexicon';

/**
 * The lexicon compiled once into hash tables, so the scanner can look a word
 * up from its characters without building a string for it. Words are hashed
 * (FNV-1a over lower-cased ASCII letters, kept within a small integer so the
 * engine never boxes it) and a hit is confirmed character by character, so a
 * hash collision can never produce a false match.
 */

export interface Meaning {
  /** Bits of REASONING_BITS. */
  reasoning: number;
  /** Bits of MATH_BITS. */
  math: number;
  codeVocabulary: boolean;
}

export interface Phrase extends Meaning {
  /** The words before the last one, in order. */
  earlier: readonly WordEntry[];
}

export interface WordEntry extends Meaning {
  /** Lower-case. */
  word: string;
  keywords: Set<CodeKeyword>;
  /** Phrases whose last word this is. */
  phraseEnds: Phrase[];
}

export const HASH_SEED = 0x011c9dc5;
const HASH_MASK = 0x3fffffff;

/** One step of the word hash; `lowerLetter` is the char code of a lower-case ASCII letter. */
export function hashStep(hash: number, lowerLetter: number): number {
  return Math.imul(hash ^ lowerLetter, 16777619) & HASH_MASK;
}

function hashWord(word: string): number {
  let hash = HASH_SEED;
  for (let index = 0; index < word.length; index += 1) hash = hashStep(hash, word.charCodeAt(index));
  return hash;
}

export const REASONING_BITS: Readonly<Record<string, number>> = Object.fromEntries(
  Object.keys(REASONING_CUES).map((cue, index) => [cue, 1 << index]),
);
export const MATH_BITS = Object.fromEntries(MATH_KIND_NAMES.map((kind, index) => [kind, 1 << index])) as Record<MathKind, number>;

/** Finds the entry for the letters text[start, start + length) whose hash is given; case is ignored. */
export type Lookup<T> = (hash: number, text: string, start: number, length: number) => T | undefined;

/** Bits of the hash that index the presence filter. */
const FILTER_BITS = 12;

function compileTable<T extends { word: string }>(entries: Iterable<T>): Lookup<T> {
  const byHash = new Map<number, T>();
  // Most words of a text are not in the lexicon; this byte per hash slot answers "certainly not" without the map.
  const present = new Uint8Array(1 << FILTER_BITS);
  const slot = (1 << FILTER_BITS) - 1;
  for (const entry of entries) {
    if (!/^[a-z]+$/.test(entry.word)) throw new Error(`lexicon word ${JSON.stringify(entry.word)} must be lower-case ASCII letters`);
    const hash = hashWord(entry.word);
    const clash = byHash.get(hash);
    if (clash) throw new Error(`lexicon words ${clash.word} and ${entry.word} share a hash; change HASH_SEED`);
    byHash.set(hash, entry);
    present[hash & slot] = 1;
  }
  return (hash, text, start, length) => {
    if (present[hash & slot] === 0) return undefined;
    const entry = byHash.get(hash);
    if (!entry || entry.word.length !== length) return undefined;
    for (let index = 0; index < length; index += 1) {
      if ((text.charCodeAt(start + index) | 0x20) !== entry.word.charCodeAt(index)) return undefined;
    }
    return entry;
  };
}

function buildWords(): Lookup<WordEntry> {
  const entries = new Map<string, WordEntry>();
  const entryFor = (word: string): WordEntry => {
    let entry = entries.get(word);
    if (!entry) {
      entry = { word, reasoning: 0, math: 0, codeVocabulary: false, keywords: new Set(), phraseEnds: [] };
      entries.set(word, entry);
    }
    return entry;
  };
  const add = (text: string, meaning: Partial<Meaning>) => {
    const words = text.split(' ');
    const last = entryFor(words[words.length - 1] ?? text);
    if (words.length === 1) {
      last.reasoning |= meaning.reasoning ?? 0;
      last.math |= meaning.math ?? 0;
      last.codeVocabulary ||= meaning.codeVocabulary ?? false;
      return;
    }
    last.phraseEnds.push({
      earlier: words.slice(0, -1).map(entryFor),
      reasoning: meaning.reasoning ?? 0,
      math: meaning.math ?? 0,
      codeVocabulary: meaning.codeVocabulary ?? false,
    });
  };
  for (const [cue, forms] of Object.entries(REASONING_CUES)) for (const form of forms) add(form, { reasoning: REASONING_BITS[cue] ?? 0 });
  for (const [kind, forms] of Object.entries(MATH_WORDS) as Array<[MathKind, readonly string[]]>) for (const form of forms) add(form, { math: MATH_BITS[kind] });
  for (const form of CODE_WORDS) add(form, { codeVocabulary: true });
  for (const [keyword, words] of Object.entries(CODE_KEYWORDS) as Array<[CodeKeyword, readonly string[]]>) {
    for (const word of words) entryFor(word).keywords.add(keyword);
  }
  return compileTable(entries.values());
}

/** The lexicon's words and phrase parts. */
export const WORDS: Lookup<WordEntry> = buildWords();
/** The LaTeX commands that mark math. */
export const LATEX: Lookup<{ word: string }> = compileTable(LATEX_COMMANDS.map((word) => ({ word })));
