import { DomainError } from '@gateway/lib/errors';
import type { StreamEvent } from '../provider';
import { chatCompletionWriter } from './chat-output';
import type { ServiceOutcome } from './output';

const outcome: ServiceOutcome = {
  request_id: 'req',
  cost_usd: '0.000010',
  savings_usd: '',
  baseline_usd: null,
  baseline_model: null,
  baseline_reason: null,
  savings_pct: '',
  priced: true,
  metered: true,
};

/** A provider event as the adapter hands it over; a usage-only chunk is forwarded only if the caller asked for usage. */
function chunk(id: string, choice: Record<string, unknown> | undefined, extra: { usage?: unknown; forwardUsage?: boolean } = {}): StreamEvent {
  const data = JSON.stringify({ id, object: 'chat.completion.chunk', choices: choice ? [choice] : [], ...(extra.usage ? { usage: extra.usage } : {}) });
  const usage = extra.usage ? { promptTokens: 1, completionTokens: 2, totalTokens: 3 } : undefined;
  return { data, done: false, usage, finishes: Boolean(choice?.finish_reason), forward: choice !== undefined || extra.forwardUsage === true };
}

const content = (index: number, text: string) => ({ index, delta: { content: text }, finish_reason: null });
const finish = (index: number) => ({ index, delta: {}, finish_reason: 'stop' });

function run(events: StreamEvent[], failure?: DomainError): Array<Record<string, unknown> | string> {
  const sent: string[] = [];
  const writer = chatCompletionWriter.stream({ send: (data) => sent.push(data) });
  writer.open({ requestId: 'req' });
  for (const event of events) writer.chunk(event);
  writer.close({ outcome, failure });
  return sent.map((data) => (data === '[DONE]' ? data : (JSON.parse(data) as Record<string, unknown>)));
}

describe('the chat-completions stream writer', () => {
  it('puts x_service on the finish_reason chunk, which it holds until the end', () => {
    const sent = run([chunk('a', content(0, 'Hi')), chunk('a', finish(0))]);
    expect(sent).toEqual([
      { id: 'a', object: 'chat.completion.chunk', choices: [content(0, 'Hi')] },
      { id: 'a', object: 'chat.completion.chunk', choices: [finish(0)], x_service: outcome },
      '[DONE]',
    ]);
  });

  it('puts x_service on the usage chunk when the caller asked for usage, after the finish_reason chunk', () => {
    const usage = { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 };
    const sent = run([chunk('a', content(0, 'Hi')), chunk('a', finish(0)), chunk('a', undefined, { usage, forwardUsage: true })]);
    expect(sent.slice(1)).toEqual([
      { id: 'a', object: 'chat.completion.chunk', choices: [finish(0)] },
      { id: 'a', object: 'chat.completion.chunk', choices: [], usage, x_service: outcome },
      '[DONE]',
    ]);
  });

  it('drops the usage chunk the caller did not ask for, and keeps x_service on the finish_reason chunk', () => {
    const usage = { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 };
    const sent = run([chunk('a', finish(0)), chunk('a', undefined, { usage })]);
    expect(sent).toEqual([{ id: 'a', object: 'chat.completion.chunk', choices: [finish(0)], x_service: outcome }, '[DONE]']);
  });

  it('releases a held finish_reason chunk when the next choice streams (n > 1)', () => {
    const sent = run([chunk('a', finish(0)), chunk('a', content(1, 'Second')), chunk('a', finish(1))]);
    expect(sent.map((event) => (typeof event === 'string' ? event : [(event.choices as Array<{ index: number }>)[0]?.index, 'x_service' in event]))).toEqual([
      [0, false],
      [1, false],
      [1, true],
      '[DONE]',
    ]);
  });

  it('gives every chunk the stream\'s one id', () => {
    const sent = run([chunk('first', content(0, 'A')), chunk('other', content(0, 'B')), chunk('third', finish(0))]);
    expect(sent.slice(0, -1).map((event) => (event as { id: string }).id)).toEqual(['first', 'first', 'first']);
  });

  it('ends a broken-off stream with one error event carrying x_service, after what was held, and no [DONE]', () => {
    const sent = run([chunk('a', content(0, 'Hi')), chunk('a', finish(0))], new DomainError('provider', 'The connection to the model provider failed.'));
    expect(sent).toEqual([
      expect.objectContaining({ choices: [content(0, 'Hi')] }),
      expect.objectContaining({ choices: [finish(0)] }),
      { error: { message: 'The connection to the model provider failed.', type: 'provider', code: 502, request_id: 'req' }, x_service: outcome },
    ]);
    expect('x_service' in (sent[1] as object)).toBe(false);
  });
});
