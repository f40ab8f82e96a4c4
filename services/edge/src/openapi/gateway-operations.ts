import { z } from 'zod';
import { GATEWAY_BASE_PATH } from '../gateway/routes';
import { chatCompletionBody } from '../gateway/request';
import { responsesRequestBody } from '../gateway/responses/schema';
import { GATEWAY_HEADER_NAMES } from './headers';
import type { Operation } from './operation';

const SSE = 'text/event-stream';
const GATEWAY_ERRORS = ['payload_too_large', 'quota', 'rate_limit', 'provider', 'timeout'] as const;

const modelEntry = z.looseObject({
  id: z.string(),
  object: z.literal('model'),
  created: z.number().int(),
  owned_by: z.string(),
  x_service: z.object({
    tier: z.string(),
    input_usd_per_million_tokens: z.string(),
    output_usd_per_million_tokens: z.string(),
    context_window: z.number().int(),
    unsupported_params: z.array(z.string()),
    prices_as_of: z.string(),
  }),
});
export const modelListSchema = z.object({ object: z.literal('list'), data: z.array(modelEntry) });
const modelParams = z.object({ id: z.string().min(1) });

const STREAMS =
  'With `"stream": true` the answer is server-sent events. The headers known before the first byte come up front; ' +
  'cost, savings and metering (`x-service-cost-usd`, `x-service-savings-*`, `x-service-baseline-*`, `x-service-priced`, `x-service-metered`) ' +
  'are known only at the end, so they follow as HTTP trailers and as the `x_service` object of the stream\'s last event.';

/** The OpenAI-compatible surface, for organization API keys. */
export const gatewayOperations: readonly Operation[] = [
  {
    method: 'post',
    path: `${GATEWAY_BASE_PATH}/chat/completions`,
    tag: 'gateway',
    summary: 'Create a chat completion',
    description:
      'OpenAI\'s Chat Completions API. `model: "auto"` lets the router pick a model for the prompt within the plan. ' +
      'Fields beyond those checked here pass through to the provider; one the served model rejects is dropped and named in `x-service-dropped-params`. ' +
      STREAMS +
      ' In a chat stream the last chunk (the usage chunk, else the `finish_reason` chunk) carries `x_service`; every chunk carries the stream\'s one id.',
    credential: 'api_key',
    body: chatCompletionBody,
    responses: [
      { status: 200, description: 'The completion (JSON), or its chunks (server-sent events) when `stream` is true.', mediaTypes: ['application/json', SSE], headers: GATEWAY_HEADER_NAMES },
    ],
    errors: GATEWAY_ERRORS,
  },
  {
    method: 'post',
    path: `${GATEWAY_BASE_PATH}/responses`,
    tag: 'gateway',
    summary: 'Create a response',
    description:
      'The stateless part of OpenAI\'s Responses API, served over chat completions: stored responses, `previous_response_id`, conversations, background mode and built-in tools are refused by name. ' +
      STREAMS +
      ' In a responses stream `response.completed` (or `response.incomplete`) carries `x_service` in its `response`.',
    credential: 'api_key',
    body: responsesRequestBody,
    responses: [
      { status: 200, description: 'The response object (JSON), or its events (server-sent events) when `stream` is true.', mediaTypes: ['application/json', SSE], headers: GATEWAY_HEADER_NAMES },
    ],
    errors: GATEWAY_ERRORS,
  },
  {
    method: 'get',
    path: `${GATEWAY_BASE_PATH}/models`,
    tag: 'gateway',
    summary: 'List the models',
    description: 'The catalog in OpenAI\'s list shape, each model with its tier, prices per million tokens and context window in `x_service`.',
    credential: 'api_key',
    responses: [{ status: 200, description: 'The catalog.', schema: modelListSchema, headers: GATEWAY_HEADER_NAMES }],
  },
  {
    method: 'get',
    path: `${GATEWAY_BASE_PATH}/models/{id}`,
    tag: 'gateway',
    summary: 'Retrieve a model',
    description: 'One model of the catalog, in the same shape as in the list.',
    credential: 'api_key',
    params: modelParams,
    responses: [{ status: 200, description: 'The model.', schema: modelEntry, headers: GATEWAY_HEADER_NAMES }],
    errors: ['not_found'],
  },
];
