import { DomainError, toDomainError } from '@gateway/lib/errors';
import { errorBody } from '../http/errors';
import type { ProviderRequest } from '../provider';
import { NO_USAGE, settle, type GatewayCall } from './chat';
import { outcomeHeaders, routeHeaders, TRAILER_HEADERS, writeGatewayHeaders, type HeaderFacts } from './headers';

/**
 * A streamed completion (DESIGN 4): what is known before the first byte goes
 * out as headers; cost, savings and metering are known only at the end, so
 * they follow as HTTP trailers and in a final chunk's `x_service` object.
 * The upstream is always asked for usage, so streams are priced like the rest.
 */
export async function streamCompletion(call: GatewayCall, upstream: ProviderRequest): Promise<void> {
  const { deps, res, facts } = call;
  const clientGone = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) clientGone.abort(new DomainError('validation', 'The client closed the connection.'));
  });
  const stream = await deps.provider.stream({ ...upstream, signal: clientGone.signal });

  res.status(200);
  // Only what is known now; the outcome headers the handler wrote so far follow as trailers instead.
  writeGatewayHeaders(res, routeHeaders(facts));
  res.set({
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    trailer: TRAILER_HEADERS.join(', '),
  });
  res.flushHeaders();

  let failure: DomainError | undefined;
  try {
    for await (const event of stream) {
      if (event.done) break;
      if (event.forward) res.write(`data: ${event.data}\n\n`);
    }
  } catch (error) {
    failure = toDomainError(error);
  }
  await settle(call, stream.usage ?? NO_USAGE, failure?.httpStatus ?? 200, failure?.errorClass ?? '');
  if (clientGone.signal.aborted) return;

  if (failure) res.write(`data: ${JSON.stringify(errorBody(failure, facts.requestId))}\n\n`);
  res.write(`data: ${JSON.stringify(finalChunk(facts))}\n\n`);
  res.write('data: [DONE]\n\n');
  res.addTrailers(outcomeHeaders(facts));
  res.end();
}

/** The last chunk: no choices, and the outcome the trailers carry, for clients that cannot read trailers. */
function finalChunk(facts: HeaderFacts): Record<string, unknown> {
  const outcome = outcomeHeaders(facts);
  return {
    id: `chatcmpl-${facts.requestId}`,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model: facts.route?.model ?? '',
    choices: [],
    x_service: {
      request_id: facts.requestId,
      cost_usd: outcome['x-service-cost-usd'] ?? '',
      savings_usd: outcome['x-service-savings-usd'] ?? '',
      baseline_usd: outcome['x-service-baseline-usd'] ?? null,
      baseline_model: outcome['x-service-baseline-model'] ?? null,
      baseline_reason: outcome['x-service-baseline-reason'] ?? null,
      savings_pct: outcome['x-service-savings-pct'] ?? '',
      priced: facts.price?.priced ?? false,
      metered: facts.metered ?? false,
    },
  };
}
