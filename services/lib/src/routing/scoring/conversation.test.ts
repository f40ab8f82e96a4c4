import {
  MAX_LEADING_SYSTEM_MESSAGES,
  SCAN_HEAD_CHARS,
  SCAN_TAIL_CHARS,
  WINDOW_MESSAGES,
  boundedText,
  readConversation,
  type ScoredMessage,
} from './conversation';
import { scoreRequest } from './score';

const user = (content: string): ScoredMessage => ({ role: 'user', content });
const assistant = (content: string): ScoredMessage => ({ role: 'assistant', content });
const system = (content: string): ScoredMessage => ({ role: 'system', content });

describe('readConversation', () => {
  it('reads lengths, user turns, the system prompt and the last user message', () => {
    const shape = readConversation([system('be brief'), { role: 'developer', content: 'no lists' }, user('hello'), assistant('hi there'), user('why?')]);
    expect(shape).toEqual({ windowChars: 'hello'.length + 'hi there'.length + 'why?'.length, userTurns: 2, systemChars: 16, scanText: 'why?' });
  });

  it('scans nothing when no user message is in the window', () => {
    expect(readConversation([system('be brief'), assistant('Explain why, step by step.')]).scanText).toBe('');
    expect(readConversation([]).scanText).toBe('');
  });

  it('reads only the leading system messages and the window of a long history', () => {
    const leading = [system('a'.repeat(100)), system('b'.repeat(10))];
    const recent = Array.from({ length: WINDOW_MESSAGES }, (_, index) => (index % 2 === 0 ? user(`recent ${index}`) : assistant('ok')));
    const history = Array.from({ length: 100_000 }, (_, index) => user(`old question ${index} ${'z'.repeat(500)}: why? compare! step by step`));
    const long = [...leading, ...history, ...recent];
    expect(readConversation(long)).toEqual(readConversation([...leading, ...recent]));
    expect(scoreRequest({ messages: long, toolCount: 0, maxOutputTokens: 0 })).toEqual(
      scoreRequest({ messages: [...leading, ...recent], toolCount: 0, maxOutputTokens: 0 }),
    );
  });

  it('stops reading the system prompt after the leading few messages', () => {
    const prompts = Array.from({ length: MAX_LEADING_SYSTEM_MESSAGES + 50 }, () => system('s'.repeat(10)));
    const conversation = [...prompts, ...Array.from({ length: WINDOW_MESSAGES }, () => user('q'))];
    expect(readConversation(conversation).systemChars).toBe(MAX_LEADING_SYSTEM_MESSAGES * 10);
  });
});

describe('boundedText', () => {
  it('keeps a short text whole', () => {
    const text = 'x'.repeat(SCAN_HEAD_CHARS + SCAN_TAIL_CHARS);
    expect(boundedText(text)).toBe(text);
  });

  it('cuts a huge text to its head and tail', () => {
    const huge = `${'h'.repeat(SCAN_HEAD_CHARS)}${'m'.repeat(5_000_000)}${'t'.repeat(SCAN_TAIL_CHARS)}`;
    const bounded = boundedText(huge);
    expect(bounded.length).toBe(SCAN_HEAD_CHARS + SCAN_TAIL_CHARS + 1);
    expect(bounded).toBe(`${'h'.repeat(SCAN_HEAD_CHARS)}\n${'t'.repeat(SCAN_TAIL_CHARS)}`);
  });

  it('means cues in the middle of a huge message are not seen, and cues at its ends are', () => {
    const filler = 'lorem ipsum '.repeat(100_000);
    const reasoning = (content: string) => scoreRequest({ messages: [user(content)], toolCount: 0, maxOutputTokens: 0 }).signals.find(({ name }) => name === 'reasoning')?.points;
    expect(reasoning(`${filler} explain why ${filler}`)).toBe(0);
    expect(reasoning(`explain ${filler}`)).toBe(10);
    expect(reasoning(`${filler} why?`)).toBe(10);
  });
});
