import { z } from 'zod';
import type { StreamEvent } from '../../provider';
import type { HeaderFacts } from '../headers';
import type { SseSink, StreamEnding, StreamWriter } from '../output';
import {
  completionStatus,
  functionCallId,
  messageId,
  outputText,
  responseBody,
  responseUsage,
  type FunctionCallItem,
  type MessageItem,
  type OutputText,
  type Refusal,
  type ResponseState,
  type ResponseUsage,
} from './response';
import type { ResponsesRequest } from './schema';

/**
 * A chat-completions stream as the Responses API's typed events, each with
 * its `sequence_number`: `response.created` and `response.in_progress` when
 * the stream opens; per output item `response.output_item.added`, its
 * content (`response.content_part.added`, `response.output_text.delta`,
 * `response.refusal.delta` ... `.done`, or `response.function_call_arguments.delta`
 * ... `.done`) and `response.output_item.done`, one item closed before the
 * next opens; then `response.completed` (`response.incomplete` for an answer
 * cut at `max_output_tokens`), whose response carries the usage and the
 * `x_service` outcome, once the call is priced and recorded. A stream the
 * provider breaks off ends with `response.failed` instead, carrying the error
 * and `x_service`.
 */
const chunkSchema = z.looseObject({
  model: z.string().optional(),
  choices: z
    .array(
      z.looseObject({
        delta: z
          .looseObject({
            content: z.string().nullish(),
            refusal: z.string().nullish(),
            tool_calls: z
              .array(
                z.looseObject({
                  index: z.number().int().nonnegative(),
                  id: z.string().nullish(),
                  function: z.looseObject({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
                }),
              )
              .nullish(),
          })
          .nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .optional(),
  usage: z.unknown(),
});

type OpenItem = { kind: 'message'; item: MessageItem; outputIndex: number } | { kind: 'call'; item: FunctionCallItem; outputIndex: number; chatIndex: number };

export class ResponsesStreamWriter implements StreamWriter {
  private sequence = 0;
  private requestId = '';
  private model = '';
  private readonly items: Array<MessageItem | FunctionCallItem> = [];
  private current: OpenItem | undefined;
  private finishReason: string | undefined;
  private usage: ResponseUsage | undefined;

  constructor(
    private readonly sink: SseSink,
    private readonly request: ResponsesRequest,
    private readonly createdAt: number,
  ) {}

  open(facts: HeaderFacts): void {
    this.requestId = facts.requestId;
    this.model = facts.route?.model ?? this.request.model;
    this.emit('response.created', { response: this.response({ status: 'in_progress' }) });
    this.emit('response.in_progress', { response: this.response({ status: 'in_progress' }) });
  }

  chunk(event: StreamEvent): void {
    const parsed = chunkSchema.safeParse(JSON.parse(event.data));
    if (!parsed.success) return;
    const chunk = parsed.data;
    if (chunk.model) this.model = chunk.model;
    this.usage = responseUsage(chunk.usage) ?? this.usage;
    const choice = chunk.choices?.[0];
    if (!choice) return;
    const delta = choice.delta;
    if (delta?.content) this.text(delta.content);
    if (delta?.refusal) this.refusal(delta.refusal);
    for (const call of delta?.tool_calls ?? []) this.toolCall(call.index, call.id ?? '', call.function?.name ?? '', call.function?.arguments ?? '');
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
  }

  close({ outcome, failure }: StreamEnding): void {
    if (failure) {
      this.emit('response.failed', {
        response: this.response({ status: 'failed', error: { code: 'server_error', message: failure.message }, outcome }),
      });
      return;
    }
    const status = completionStatus(this.finishReason);
    this.finishItem(status.status === 'incomplete' ? 'incomplete' : 'completed');
    const type = status.status === 'incomplete' ? 'response.incomplete' : 'response.completed';
    this.emit(type, { response: this.response({ ...status, usage: this.usage, outcome }) });
  }

  private response(state: Partial<ResponseState> & Pick<ResponseState, 'status'>): Record<string, unknown> {
    return responseBody(this.request, { requestId: this.requestId, createdAt: this.createdAt, model: this.model, output: this.items, ...state });
  }

  private emit(type: string, fields: Record<string, unknown>): void {
    this.sink.send(JSON.stringify({ type, sequence_number: this.sequence++, ...fields }), type);
  }

  /** The message item, opened on its first text or refusal. */
  private message(): { item: MessageItem; outputIndex: number } {
    if (this.current?.kind === 'message') return this.current;
    this.finishItem('completed');
    const item: MessageItem = { type: 'message', id: messageId(this.requestId), role: 'assistant', status: 'in_progress', content: [] };
    this.current = { kind: 'message', item, outputIndex: this.items.length };
    this.items.push(item);
    this.emit('response.output_item.added', { output_index: this.current.outputIndex, item: { ...item, content: [] } });
    return this.current;
  }

  /** The message's last part if it is of this type, else a new one. */
  private part<Part extends OutputText | Refusal>(type: Part['type'], empty: () => Part): { part: Part; fields: Record<string, unknown> } {
    const { item, outputIndex } = this.message();
    let part = item.content.at(-1);
    if (part?.type !== type) {
      part = empty();
      item.content.push(part);
      this.emit('response.content_part.added', { item_id: item.id, output_index: outputIndex, content_index: item.content.length - 1, part: { ...part } });
    }
    return { part: part as Part, fields: { item_id: item.id, output_index: outputIndex, content_index: item.content.length - 1 } };
  }

  private text(delta: string): void {
    const { part, fields } = this.part<OutputText>('output_text', () => outputText(''));
    part.text += delta;
    this.emit('response.output_text.delta', { ...fields, delta, logprobs: [] });
  }

  private refusal(delta: string): void {
    const { part, fields } = this.part<Refusal>('refusal', () => ({ type: 'refusal', refusal: '' }));
    part.refusal += delta;
    this.emit('response.refusal.delta', { ...fields, delta });
  }

  private toolCall(chatIndex: number, callId: string, name: string, argumentsDelta: string): void {
    if (this.current?.kind !== 'call' || this.current.chatIndex !== chatIndex) {
      this.finishItem('completed');
      const item: FunctionCallItem = {
        type: 'function_call',
        id: functionCallId(this.requestId, chatIndex),
        call_id: callId,
        name,
        arguments: '',
        status: 'in_progress',
      };
      this.current = { kind: 'call', item, outputIndex: this.items.length, chatIndex };
      this.items.push(item);
      this.emit('response.output_item.added', { output_index: this.current.outputIndex, item: { ...item } });
    }
    const { item, outputIndex } = this.current;
    if (argumentsDelta === '') return;
    item.arguments += argumentsDelta;
    this.emit('response.function_call_arguments.delta', { item_id: item.id, output_index: outputIndex, delta: argumentsDelta });
  }

  /** Closes the open item: its parts' `done` events, then its own. */
  private finishItem(status: 'completed' | 'incomplete'): void {
    const open = this.current;
    if (!open) return;
    this.current = undefined;
    const { item, outputIndex } = open;
    if (open.kind === 'message') {
      open.item.content.forEach((part, contentIndex) => {
        const fields = { item_id: item.id, output_index: outputIndex, content_index: contentIndex };
        if (part.type === 'output_text') this.emit('response.output_text.done', { ...fields, text: part.text, logprobs: [] });
        else this.emit('response.refusal.done', { ...fields, refusal: part.refusal });
        this.emit('response.content_part.done', { ...fields, part: { ...part } });
      });
    } else {
      this.emit('response.function_call_arguments.done', { item_id: item.id, output_index: outputIndex, name: open.item.name, arguments: open.item.arguments });
    }
    item.status = status;
    this.emit('response.output_item.done', { output_index: outputIndex, item: structuredClone(item) });
  }
}
