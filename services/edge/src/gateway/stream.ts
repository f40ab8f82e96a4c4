import { DomainError, toDomainError } from '@gateway/lib/errors';
import type { ProviderRequest } from '../provider';
import { NO_USAGE, settle, type GatewayCall } from './chat';
import { outcomeHeaders, routeHeaders, TRAILER_HEADERS, writeGatewayHeaders } from './headers';
import { serviceOutcome, sseSink, type AnswerWriter } from './output';

/**
 * A streamed completion (docs/api.md): what is known before the first byte goes
 * out as headers; cost, savings and metering are known only at the end, so
 * they follow as HTTP trailers and in the `x_service` object the endpoint's
 * writer puts on its last event. The upstream is always asked for usage, so
 * streams are priced like the rest.
 */
export async function streamCompletion(call: GatewayCall, upstream: ProviderRequest, writer: AnswerWriter): Promise<void> {
  const { deps, res, facts } = call;
  const clientGone = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) clientGone.abort(new DomainError('validation', 'The client closed the connection.'));
  });
  // Object.assign rather than a spread given a new key: see gatewayHeaders (headers.ts).
  const stream = await deps.provider.stream(Object.assign({}, upstream, { signal: clientGone.signal }));

  res.statusCode = 200;
  // Only what is known now; the outcome headers follow as trailers.
  writeGatewayHeaders(res, routeHeaders(facts));
  res.setHeader('content-type', 'text/event-stream; charset=utf-8');
  res.setHeader('cache-control', 'no-store');
  res.setHeader('trailer', TRAILER_HEADERS.join(', '));
  // The headers leave with the first chunk, in one write, when it follows at once (it usually came
  // in with the provider's headers); else at the end of this turn of the event loop, so a slow first
  // token never holds them. Written apart, they cost a write and a wake-up of the client more.
  const flushHeaders = () => {
    if (!res.headersSent) res.flushHeaders();
  };
  const headersDue = setImmediate(flushHeaders);

  const output = writer.stream(sseSink(res));
  let failure: DomainError | undefined;
  try {
    output.open(facts);
    for await (const event of stream) {
      if (event.done) break;
      output.chunk(event);
    }
  } catch (error) {
    failure = toDomainError(error);
  } finally {
    // Past this point the answer is committed, as the error path of the pipeline expects.
    clearImmediate(headersDue);
    flushHeaders();
  }
  await settle(call, stream.usage ?? NO_USAGE, failure?.httpStatus ?? 200, failure?.errorClass ?? '');
  stream.recordCost?.(facts.price);
  if (clientGone.signal.aborted) return;

  output.close({ outcome: serviceOutcome(facts), failure });
  res.addTrailers(outcomeHeaders(facts));
  res.end();
}
