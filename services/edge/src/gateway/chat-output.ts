import { errorBody } from '../http/errors';
import type { StreamEvent } from '../provider';
import type { AnswerWriter, SseSink, StreamEnding, StreamWriter } from './output';

/**
 * Chat completions on the wire: the provider's JSON body passes through
 * unchanged, and its stream passes through chunk by chunk, with the two
 * changes strict clients need (docs/api.md):
 *
 * - The `x_service` outcome rides on the stream's last real chunk: the usage
 *   chunk when the caller asked for usage, else the `finish_reason` chunk.
 *   Those closing chunks are held back until the call is priced and recorded,
 *   never sent as a chunk of their own, because clients read `choices[0]` of
 *   every chunk. A chunk that follows a held one (the next choice of `n > 1`)
 *   releases it first, so only the stream's end waits.
 * - Every chunk carries the stream's one id (the first chunk's).
 *
 * A stream the provider breaks off ends with one `data: {"error": ...}` event
 * carrying `x_service` too, and no `[DONE]`: the OpenAI SDKs raise their
 * APIError on an `error` event, and a reader that waits for `[DONE]` knows the
 * answer is incomplete.
 */
export const chatCompletionWriter: AnswerWriter = {
  json: (answer) => answer.text,
  stream: (sink) => new ChatStreamWriter(sink),
};

type Chunk = Record<string, unknown>;

class ChatStreamWriter implements StreamWriter {
  private streamId: string | undefined;
  /** Closing chunks not yet sent: the last one takes `x_service`. */
  private held: string[] = [];

  constructor(private readonly sink: SseSink) {}

  open(): void {}

  chunk(event: StreamEvent): void {
    if (!event.forward) return;
    const data = this.withStreamId(event.data);
    if (event.finishes || event.usage) {
      this.held.push(data);
      return;
    }
    this.release();
    this.sink.send(data);
  }

  close({ outcome, failure }: StreamEnding): void {
    if (failure) {
      this.release();
      this.sink.send(JSON.stringify({ ...errorBody(failure, outcome.request_id), x_service: outcome }));
      return;
    }
    const last = this.held.pop();
    this.release();
    // The provider stream always finishes a choice before it ends (else it is a failure), so one is held.
    if (last !== undefined) this.sink.send(JSON.stringify({ ...(JSON.parse(last) as Chunk), x_service: outcome }));
    this.sink.send('[DONE]');
  }

  private release(): void {
    for (const data of this.held) this.sink.send(data);
    this.held = [];
  }

  /** The chunk with the stream's id; chunks that already carry it (every chunk of a well-behaved provider) go as they came. */
  private withStreamId(data: string): string {
    if (this.streamId !== undefined && data.startsWith(`{"id":${JSON.stringify(this.streamId)},`)) return data;
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      return data;
    }
    if (typeof chunk !== 'object' || chunk === null || Array.isArray(chunk)) return data;
    const id = (chunk as Chunk).id;
    if (this.streamId === undefined && typeof id === 'string') this.streamId = id;
    if (this.streamId === undefined || id === this.streamId) return data;
    return JSON.stringify({ ...chunk, id: this.streamId });
  }
}
