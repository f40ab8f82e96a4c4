import { createOpenAI } from '@ai-sdk/openai';
import { AIMessageChunk, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import { APICallError, generateObject, generateText, stepCountIs, streamText, tool, type LanguageModel } from 'ai';
import OpenAI from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import type { FeatureName } from './results';

/**
 * The JavaScript clients as their users write them, one check per feature.
 * A check throws when the client does not work. Each client is configured
 * exactly as the README shows. The checks are listed when the suite is
 * defined and run once the stack is up: they read `gateway` only when run.
 */
export interface Gateway {
  /** `{base_url}/api/gateway/v1` */
  url: string;
  key: string;
  badKey: string;
  /** The cost header's value in micro-dollars for this model and these tokens (the catalog's price). */
  costOf(model: string, usage: { prompt_tokens: number; completion_tokens: number }): bigint;
}

export type Checks = Partial<Record<FeatureName, () => Promise<void>>>;

const question = 'Tell me about rivers.';
const weatherQuestion = 'What is the weather in Paris? Use get_weather.';
const city = z.object({ name: z.string(), population: z.number().int(), landmarks: z.array(z.string()), mayor: z.string().nullable() });

function expect(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

function expectCost(headers: { get(name: string): string | null | undefined }, gateway: Gateway, usage: { prompt_tokens: number; completion_tokens: number }): void {
  const model = headers.get('x-service-model') ?? '';
  const cost = headers.get('x-service-cost-usd') ?? '';
  const micros = BigInt(cost.replace('.', ''));
  expect(micros === gateway.costOf(model, usage), `x-service-cost-usd ${cost} is not the price of ${JSON.stringify(usage)} on ${model}`);
}

async function rejection(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  throw new Error('the call succeeded; it was expected to fail');
}

export function openaiNodeChecks(gateway: Gateway): Checks {
  const connect = (apiKey = gateway.key) => new OpenAI({ apiKey, baseURL: gateway.url, maxRetries: 0 });
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: question }];
  const weatherTool: OpenAI.ChatCompletionTool = {
    type: 'function',
    function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } },
  };
  const plainText = async () => (await connect().chat.completions.create({ model: 'auto', messages })).choices[0]?.message.content;
  return {
    plain: async () => expect(await plainText(), 'no content'),
    stream: async () => {
      let text = '';
      for await (const chunk of await connect().chat.completions.create({ model: 'auto', messages, stream: true })) {
        text += chunk.choices[0]?.delta.content ?? '';
        expect(chunk.choices[0], 'a chunk without choices');
      }
      expect(text === (await plainText()), 'the streamed text differs from the plain answer');
    },
    stream_usage: async () => {
      const stream = connect().chat.completions.stream({ model: 'auto', messages, stream_options: { include_usage: true } });
      const final = await stream.finalChatCompletion();
      expect(final.usage && final.usage.completion_tokens > 0, `finalChatCompletion().usage is ${JSON.stringify(final.usage)}`);
    },
    stream_cost: async () => {
      let last: (OpenAI.ChatCompletionChunk & { x_service?: { cost_usd?: string } }) | undefined;
      for await (const chunk of await connect().chat.completions.create({ model: 'auto', messages, stream: true })) last = chunk;
      expect(last?.x_service?.cost_usd, 'the last chunk carries no x_service.cost_usd');
    },
    tools: async () => {
      const question: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: weatherQuestion }];
      const first = await connect().chat.completions.create({ model: 'auto', messages: question, tools: [weatherTool] });
      const message = first.choices[0]?.message;
      const call = message?.tool_calls?.[0];
      expect(message && call, 'no tool call');
      const follow = await connect().chat.completions.create({
        model: 'auto',
        tools: [weatherTool],
        messages: [...question, message, { role: 'tool', tool_call_id: call.id, content: '{"temp":18}' }],
      });
      expect(follow.choices[0]?.message.content, 'no answer after the tool result');
    },
    structured: async () => {
      const completion = await connect().chat.completions.parse({
        model: 'auto',
        messages: [{ role: 'user', content: 'Describe a city.' }],
        response_format: zodResponseFormat(city, 'city'),
      });
      expect(city.safeParse(completion.choices[0]?.message.parsed).success, 'parsed is not a city');
    },
    usage: async () => {
      const { data, response } = await connect().chat.completions.create({ model: 'auto', messages }).withResponse();
      expect(data.usage, 'no usage');
      expectCost(response.headers, gateway, data.usage);
    },
    request_id: async () => {
      const { data, response, request_id: requestId } = await connect().chat.completions.create({ model: 'auto', messages }).withResponse();
      expect(requestId && requestId === response.headers.get('x-service-request-id'), `request_id is ${requestId}`);
      expect(data.id, 'no id');
    },
    responses: async () => {
      const response = await connect().responses.create({ model: 'auto', input: question });
      const stream = connect().responses.stream({ model: 'auto', input: question });
      let text = '';
      for await (const event of stream) if (event.type === 'response.output_text.delta') text += event.delta;
      const final = await stream.finalResponse();
      expect(response.output_text && text === response.output_text && final.output_text === text, 'the streamed response differs');
      expect((final as unknown as { x_service?: { cost_usd?: string } }).x_service?.cost_usd, 'the final response carries no x_service');
    },
    error_auth: async () => {
      const error = await rejection(() => connect(gateway.badKey).chat.completions.create({ model: 'auto', messages }));
      expect(error instanceof OpenAI.AuthenticationError && error.status === 401, `not an AuthenticationError: ${String(error)}`);
    },
    error_model: async () => {
      const error = await rejection(() => connect().chat.completions.create({ model: 'gpt-99-ultra', messages }));
      expect(error instanceof OpenAI.BadRequestError && error.status === 400, `not a BadRequestError: ${String(error)}`);
    },
  };
}

/** The Vercel AI SDK, with the default provider (the Responses API) or `.chat` (chat completions). */
export function aiSdkChecks(gateway: Gateway, api: 'responses' | 'chat'): Checks {
  const provider = (apiKey: string) => createOpenAI({ apiKey, baseURL: gateway.url });
  const model = (apiKey = gateway.key, id = 'auto'): LanguageModel => (api === 'chat' ? provider(apiKey).chat(id) : provider(apiKey)(id));
  const plainText = async () => (await generateText({ model: model(), prompt: question, maxRetries: 0 })).text;
  const weather = tool({
    description: 'The weather in a city.',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city: name }) => ({ city: name, temp: 18 }),
  });
  return {
    plain: async () => expect(await plainText(), 'no text'),
    stream: async () => {
      const result = streamText({ model: model(), prompt: question, maxRetries: 0 });
      let text = '';
      for await (const piece of result.textStream) text += piece;
      expect(text === (await plainText()), 'the streamed text differs from the plain answer');
    },
    stream_usage: async () => {
      const result = streamText({ model: model(), prompt: question, maxRetries: 0 });
      await result.consumeStream();
      const usage = await result.usage;
      expect((usage.outputTokens ?? 0) > 0 && (usage.inputTokens ?? 0) > 0, `usage is ${JSON.stringify(usage)}`);
    },
    stream_cost: async () => {
      // The raw chunks: chat's last chunk, or the Responses API's response.completed, carries x_service.
      const result = streamText({ model: model(), prompt: question, maxRetries: 0, includeRawChunks: true });
      let cost: string | undefined;
      for await (const part of result.fullStream) {
        if (part.type !== 'raw') continue;
        const raw = part.rawValue as { x_service?: { cost_usd?: string }; response?: { x_service?: { cost_usd?: string } } };
        cost = raw.x_service?.cost_usd ?? raw.response?.x_service?.cost_usd ?? cost;
      }
      expect(cost, 'no raw chunk carries x_service.cost_usd');
    },
    tools: async () => {
      const result = await generateText({ model: model(), prompt: weatherQuestion, tools: { get_weather: weather }, stopWhen: stepCountIs(3), maxRetries: 0 });
      const calls = result.steps.flatMap((step) => step.toolCalls);
      expect(calls.length > 0 && calls[0]?.toolName === 'get_weather', 'no get_weather call');
      expect(result.steps.length >= 2 && result.text, `no answer after the tool result (${result.steps.length} steps)`);
    },
    structured: async () => {
      const result = await generateObject({ model: model(), schema: city, prompt: 'Describe a city.', maxRetries: 0 });
      expect(city.safeParse(result.object).success, 'not a city');
    },
    usage: async () => {
      const result = await generateText({ model: model(), prompt: question, maxRetries: 0 });
      const headers = new Headers(result.response.headers);
      expect(result.usage.inputTokens !== undefined && result.usage.outputTokens !== undefined, 'no usage');
      expectCost(headers, gateway, { prompt_tokens: result.usage.inputTokens, completion_tokens: result.usage.outputTokens });
    },
    ...(api === 'responses'
      ? {
          responses: async () => {
            const result = await generateText({ model: model(), prompt: question, maxRetries: 0 });
            expect((result.response.body as { object?: string }).object === 'response', 'the default provider did not call the Responses API');
          },
        }
      : {}),
    error_auth: async () => {
      const error = await rejection(() => generateText({ model: model(gateway.badKey), prompt: question, maxRetries: 0 }));
      expect(APICallError.isInstance(error) && error.statusCode === 401, `not a 401 APICallError: ${String(error)}`);
    },
    error_model: async () => {
      const error = await rejection(() => generateText({ model: model(gateway.key, 'gpt-99-ultra'), prompt: question, maxRetries: 0 }));
      expect(APICallError.isInstance(error) && error.statusCode === 400, `not a 400 APICallError: ${String(error)}`);
    },
  };
}

export function langchainChecks(gateway: Gateway): Checks {
  const chat = (fields: Partial<ConstructorParameters<typeof ChatOpenAI>[0]> = {}) =>
    new ChatOpenAI({ model: 'auto', apiKey: gateway.key, configuration: { baseURL: gateway.url }, maxRetries: 0, ...fields });
  const plainText = async () => (await chat().invoke(question)).text;
  const status = (error: unknown) => (error as { status?: number }).status;
  return {
    plain: async () => expect(await plainText(), 'no text'),
    stream: async () => {
      let text = '';
      for await (const chunk of await chat().stream(question)) text += chunk.text;
      expect(text === (await plainText()), 'the streamed text differs from the plain answer');
    },
    stream_usage: async () => {
      let whole: AIMessageChunk | undefined;
      for await (const chunk of await chat().stream(question)) whole = whole ? whole.concat(chunk) : chunk;
      expect((whole?.usage_metadata?.output_tokens ?? 0) > 0, `usage_metadata is ${JSON.stringify(whole?.usage_metadata)}`);
    },
    stream_cost: async () => {
      let cost: string | undefined;
      // Without streamUsage the finish_reason chunk is the last one, and LangChain passes it on (it skips a usage chunk, having no choice).
      for await (const chunk of await chat({ __includeRawResponse: true, streamUsage: false }).stream(question)) {
        const raw = chunk.additional_kwargs.__raw_response as { x_service?: { cost_usd?: string } } | undefined;
        cost = raw?.x_service?.cost_usd ?? cost;
      }
      expect(cost, 'no raw chunk carries x_service.cost_usd');
    },
    tools: async () => {
      const weather = { name: 'get_weather', description: 'The weather in a city.', schema: z.object({ city: z.string() }) };
      const model = chat().bindTools([weather]);
      const history: BaseMessage[] = [];
      const first = await model.invoke(weatherQuestion);
      const call = first.tool_calls?.[0];
      expect(call?.id && call.name === 'get_weather', 'no get_weather call');
      history.push(first, new ToolMessage({ tool_call_id: call.id, content: '{"temp":18}' }));
      const follow = await model.invoke([{ role: 'user', content: weatherQuestion }, ...history]);
      expect(follow.text, 'no answer after the tool result');
    },
    structured: async () => {
      const answer = await chat().withStructuredOutput(city).invoke('Describe a city.');
      expect(city.safeParse(answer).success, 'not a city');
    },
    usage: async () => {
      const answer = await chat().invoke(question);
      expect((answer.usage_metadata?.input_tokens ?? 0) > 0 && (answer.usage_metadata?.output_tokens ?? 0) > 0, 'no usage_metadata');
    },
    error_auth: async () => {
      const error = await rejection(() => chat({ apiKey: gateway.badKey }).invoke(question));
      expect(status(error) === 401, `not a 401: ${String(error)}`);
    },
    error_model: async () => {
      const error = await rejection(() => chat({ model: 'gpt-99-ultra' }).invoke(question));
      expect(status(error) === 400, `not a 400: ${String(error)}`);
    },
  };
}
