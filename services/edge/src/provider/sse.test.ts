import fc from 'fast-check';
import { SseDecoder } from './sse';

function decodeAll(pieces: string[]): string[] {
  const decoder = new SseDecoder();
  return [...pieces.flatMap((piece) => decoder.push(piece)), ...decoder.end()];
}

describe('SseDecoder', () => {
  it('reads data events, joining multi-line data and ignoring other fields and comments', () => {
    const text = ': keep-alive\n\nevent: message\ndata: {"a":1}\n\ndata: line one\ndata:line two\nid: 7\n\ndata: [DONE]\n\n';
    expect(decodeAll([text])).toEqual(['{"a":1}', 'line one\nline two', '[DONE]']);
  });

  it('accepts CRLF line ends and a last event without its blank line', () => {
    expect(decodeAll(['data: one\r\n\r\ndata: two'])).toEqual(['one', 'two']);
  });

  it('gives the same events however the bytes are split', () => {
    const text = 'data: {"x":"é"}\r\n\r\n: comment\ndata: second\n\ndata: [DONE]\n\n';
    fc.assert(
      fc.property(fc.array(fc.nat(text.length), { maxLength: 8 }), (cuts) => {
        const points = [...new Set(cuts)].sort((a, b) => a - b);
        const pieces = [0, ...points].map((start, index) => text.slice(start, points[index] ?? text.length));
        expect(decodeAll(pieces)).toEqual(['{"x":"é"}', 'second', '[DONE]']);
      }),
    );
  });
});
