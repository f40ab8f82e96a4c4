import type { GatewayEndpoint } from '../output';
import { responsesWriter } from './answer';
import { readResponsesRequest } from './to-chat';

/**
 * POST /api/gateway/v1/responses: OpenAI's Responses API, stateless, as a
 * translation at the edges of the chat-completions pipeline. The request
 * becomes a chat-completions body on the way in and the answer a Response
 * object (or its typed events) on the way out; authentication, routing,
 * admission, the provider call, pricing, metering and every `x-service-*`
 * header are the pipeline's, exactly as for chat completions.
 */
export const responsesEndpoint: GatewayEndpoint = {
  accept: (raw) => {
    const { request, body } = readResponsesRequest(raw);
    return { body, writer: responsesWriter(request, Math.floor(Date.now() / 1000)) };
  },
};
