import { z } from 'zod';
import { DomainError } from '@gateway/lib/errors';
import type { CompletionResult } from '../../provider';
import { serviceOutcome, type AnswerWriter } from '../output';
import { ResponsesStreamWriter } from './events';
import { completionStatus, functionCallId, messageId, outputText, responseBody, responseUsage, type ItemStatus, type OutputItem } from './response';
import type { ResponsesRequest } from './schema';

/** How a Responses API call's answer goes out: a Response object, or its typed event stream. */
export function responsesWriter(request: ResponsesRequest, createdAt: number): AnswerWriter {
  return {
    json: (answer, facts) => {
      const completion = readCompletion(answer);
      const choice = completion.choices[0];
      const status = completionStatus(choice?.finish_reason);
      return JSON.stringify(
        responseBody(request, {
          requestId: facts.requestId,
          createdAt,
          model: completion.model,
          ...status,
          output: outputItems(facts.requestId, choice?.message, status.status === 'incomplete' ? 'incomplete' : 'completed'),
          usage: responseUsage(completion.usage),
          outcome: serviceOutcome(facts),
        }),
      );
    },
    stream: (sink) => new ResponsesStreamWriter(sink, request, createdAt),
  };
}

const chatCompletion = z.looseObject({
  model: z.string(),
  choices: z.array(
    z.looseObject({
      message: z.looseObject({
        content: z.string().nullish(),
        refusal: z.string().nullish(),
        tool_calls: z.array(z.looseObject({ id: z.string(), function: z.looseObject({ name: z.string(), arguments: z.string() }) })).nullish(),
      }),
      finish_reason: z.string().nullish(),
    }),
  ),
  usage: z.unknown(),
});
type ChatMessage = z.infer<typeof chatCompletion>['choices'][number]['message'];

function readCompletion(answer: CompletionResult): z.infer<typeof chatCompletion> {
  const completion = chatCompletion.safeParse(answer.json);
  if (completion.success) return completion.data;
  throw new DomainError('provider', 'The model provider sent an answer that is not a chat completion. Retry the request.', {
    internalReason: `chat completion unreadable for the Responses API: ${completion.error.issues[0]?.path.join('.') ?? ''}`,
  });
}

/** The choice as output items: its text (or refusal) as one message, then one function_call per tool call. */
function outputItems(requestId: string, message: ChatMessage | undefined, status: ItemStatus): OutputItem[] {
  const items: OutputItem[] = [];
  const calls = message?.tool_calls ?? [];
  const text = message?.content ?? '';
  if (text !== '' || message?.refusal || calls.length === 0) {
    items.push({
      type: 'message',
      id: messageId(requestId),
      role: 'assistant',
      status,
      content: [...(text !== '' || !message?.refusal ? [outputText(text)] : []), ...(message?.refusal ? [{ type: 'refusal' as const, refusal: message.refusal }] : [])],
    });
  }
  calls.forEach((call, index) =>
    items.push({
      type: 'function_call',
      id: functionCallId(requestId, index),
      call_id: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
      status: 'completed',
    }),
  );
  return items;
}
