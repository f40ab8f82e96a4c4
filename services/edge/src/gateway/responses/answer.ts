import { z } from 'zod';
import { serviceOutcome, type AnswerWriter } from '../output';
import { ResponsesStreamWriter } from './events';
import { completionStatus, functionCallId, messageId, outputText, responseBody, responseUsage, type ItemStatus, type OutputItem } from './response';
import type { ResponsesRequest } from './schema';

/** How a Responses API call's answer goes out: a Response object, or its typed event stream. */
export function responsesWriter(request: ResponsesRequest, createdAt: number): AnswerWriter {
  return {
    json: (answer, facts) => {
      const common = { requestId: facts.requestId, createdAt, usage: responseUsage(answer.json.usage), outcome: serviceOutcome(facts) };
      const completion = chatCompletion.safeParse(answer.json);
      // The call is priced and recorded by now: an answer that cannot be translated is a failed response, not a second error.
      if (!completion.success) {
        const model = typeof answer.json.model === 'string' ? answer.json.model : request.model;
        return JSON.stringify(responseBody(request, { ...common, model, status: 'failed', output: [], error: { code: 'server_error', message: UNREADABLE } }));
      }
      const choice = completion.data.choices[0];
      const status = completionStatus(choice?.finish_reason);
      return JSON.stringify(
        responseBody(request, {
          ...common,
          model: completion.data.model,
          ...status,
          output: outputItems(facts.requestId, choice?.message, status.status === 'incomplete' ? 'incomplete' : 'completed'),
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

const UNREADABLE = 'The model provider sent an answer that is not a chat completion. Retry the request.';

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
