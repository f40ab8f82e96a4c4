import { Writable } from 'node:stream';
import { Metadata } from '@grpc/grpc-js';
import { AuthServiceService, type AuthenticateResponse } from '@gateway/proto/gen/gateway/auth/v1/auth';
import { LedgerServiceService, RecordRequest, type RecordResponse } from '@gateway/proto/gen/gateway/ledger/v1/ledger';
import { PricingServiceService, type WatchPriceListResponse } from '@gateway/proto/gen/gateway/pricing/v1/pricing';
import { samplePrincipal } from '../../../../test/support/principals';
import { DomainError } from '../errors';
import { createLogger } from '../logging';
import { grpcTransport, inProcessTransport, type RunningTransport } from '../../test/support/transports';
import type { CallSettings, PromiseClient } from './client';
import type { CallContext } from './server';

/**
 * What every transport of lib's typed clients must do alike, run over each:
 * the same answers, the same errors (a DomainError intact, anything else an
 * `internal` with a generic message, logged once where the handler ran), the
 * deadline and the metadata reaching the handler, a deadline that passes as
 * `timeout`, and a server stream that ends, fails and is cancelled the same way.
 * The unary cases run for a unary RPC and for the calls a call stream carries.
 */
const definition = {
  authenticate: AuthServiceService.authenticate,
  watchPriceList: PricingServiceService.watchPriceList,
  streamRecords: LedgerServiceService.streamRecords,
};
type Definition = typeof definition;

const principal: AuthenticateResponse = { principal: samplePrincipal('org-1') };
const recorded: RecordResponse = { accepted: true, quota: undefined, leaseValidForMs: 0 };

/** A unary-like call whose handler does what `behaviour` names; the same cases run for each. */
interface UnaryCase {
  name: string;
  path: string;
  answer: unknown;
  call(client: PromiseClient<Definition>, behaviour: string, settings?: CallSettings): Promise<unknown>;
}
const unaryCases: UnaryCase[] = [
  {
    name: 'a unary RPC',
    path: '/gateway.auth.v1.AuthService/Authenticate',
    answer: principal,
    call: (client, behaviour, settings) => client.authenticate({ credential: behaviour, agentId: '' }, settings),
  },
  {
    name: 'a call carried by a call stream',
    path: '/gateway.ledger.v1.LedgerService/StreamRecords',
    answer: recorded,
    call: (client, behaviour, settings) => client.streamRecords(RecordRequest.fromPartial({ requestId: behaviour }), settings),
  },
];
const listOf = (version: string): WatchPriceListResponse => ({ priceList: { version, pricesAsOf: '2025-09-01', models: [], plans: [] } });

describe.each([grpcTransport, inProcessTransport])('lib client over $name', (transport) => {
  const logLines: string[] = [];
  const seen: Array<{ deadline: Date | number; requestId: unknown }> = [];
  let releaseSlowCalls: () => void = () => undefined;
  const slowCallsReleased = new Promise<void>((resolve) => (releaseSlowCalls = resolve));
  const streamsEnded: string[] = [];
  let running: RunningTransport<Definition>;
  let client: PromiseClient<Definition>;

  const behave = async (behaviour: string, context: CallContext) => {
    seen.push({ deadline: context.deadline, requestId: context.metadata.get('x-service-request-id')[0] });
    switch (behaviour) {
      case 'invalid':
        throw new DomainError('validation', 'credential: must not be empty', { field: 'credential' });
      case 'rate-limited':
        throw new DomainError('rate_limit', 'Too many attempts.', { retryAfterSeconds: 42, internalReason: 'source over limit' });
      case 'crash':
        throw new Error('relation "auth.api_keys" does not exist');
      case 'slow':
        await slowCallsReleased;
    }
  };

  beforeAll(async () => {
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(chunk.toString());
        done();
      },
    });
    running = await transport.start(
      definition,
      {
        authenticate: async ({ credential }, context) => {
          await behave(credential, context);
          return principal;
        },
        streamRecords: async ({ requestId }, context) => {
          await behave(requestId, context);
          return recorded;
        },
        watchPriceList: async function* (_request, { metadata, signal }) {
          const mode = String(metadata.get('mode')[0] ?? '');
          try {
            yield listOf('v1');
            if (mode === 'fail') throw new DomainError('unavailable', 'Prices are being reloaded.');
            if (mode === 'end') return;
            yield listOf('v2');
            if (!signal.aborted) await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
          } finally {
            streamsEnded.push(mode);
          }
        },
      },
      createLogger({ service: 'test', destination }),
    );
    client = running.client;
  });

  afterAll(async () => {
    releaseSlowCalls();
    await running.stop();
  });

  const metadataWith = (key: string, value: string) => {
    const metadata = new Metadata();
    metadata.set(key, value);
    return metadata;
  };

  describe.each(unaryCases)('$name', ({ path, answer, call }) => {
    it('returns the response, with the deadline and the metadata at the handler', async () => {
      await expect(call(client, 'ok', { metadata: metadataWith('x-service-request-id', 'abc123') })).resolves.toEqual(answer);
      const { deadline, requestId } = seen.at(-1) ?? {};
      expect(Number.isFinite(typeof deadline === 'number' ? deadline : deadline?.getTime())).toBe(true);
      expect(requestId).toBe('abc123');
    });

    it('delivers a thrown DomainError as the same DomainError', async () => {
      const error = await call(client, 'invalid').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(DomainError);
      expect(error).toMatchObject({ kind: 'validation', message: 'credential: must not be empty', field: 'credential' });
    });

    it('carries retry-after but not the internal reason', async () => {
      const error = await call(client, 'rate-limited').catch((caught: unknown) => caught);
      expect(error).toMatchObject({ kind: 'rate_limit', message: 'Too many attempts.', retryAfterSeconds: 42, internalReason: undefined });
    });

    it('delivers a plain Error as internal with a generic message, logged where the handler ran', async () => {
      const error = await call(client, 'crash').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(DomainError);
      expect(error).toMatchObject({ kind: 'internal', message: 'Internal error. Report it with the request id.' });
      expect((error as DomainError).message).not.toContain('api_keys');
      const logged = logLines.map((line) => JSON.parse(line) as { msg: string; rpc?: string; err?: { message?: string } });
      expect(logged).toContainEqual(
        expect.objectContaining({
          msg: 'rpc failed',
          rpc: path,
          err: expect.objectContaining({ message: 'relation "auth.api_keys" does not exist' }),
        }),
      );
    });

    it('turns a handler slower than the deadline into timeout naming the service', async () => {
      const error = await call(client, 'slow', { deadlineMs: 100 }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(DomainError);
      expect(error).toMatchObject({ kind: 'timeout', message: 'The auth service did not answer in time.' });
    });
  });

  it('streams every response until the handler ends', async () => {
    const received: string[] = [];
    for await (const response of client.watchPriceList({}, { metadata: metadataWith('mode', 'end') })) received.push(response.priceList?.version ?? '');
    expect(received).toEqual(['v1']);
  });

  it('delivers a stream that fails as the DomainError, after what it sent', async () => {
    const received: string[] = [];
    const error = await (async () => {
      for await (const response of client.watchPriceList({}, { metadata: metadataWith('mode', 'fail') })) received.push(response.priceList?.version ?? '');
    })().catch((caught: unknown) => caught);
    expect(received).toEqual(['v1']);
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ kind: 'unavailable', message: 'Prices are being reloaded.' });
  });

  it("ends the stream quietly when the caller aborts, and the handler's stream with it", async () => {
    const abort = new AbortController();
    const received: string[] = [];
    for await (const response of client.watchPriceList({}, { metadata: metadataWith('mode', 'aborted'), signal: abort.signal })) {
      received.push(response.priceList?.version ?? '');
      if (received.length === 2) abort.abort();
    }
    expect(received).toEqual(['v1', 'v2']);
    while (!streamsEnded.includes('aborted')) await new Promise((resolve) => setImmediate(resolve));
  });

  it("ends the stream when the caller stops reading, and the handler's stream with it", async () => {
    for await (const response of client.watchPriceList({}, { metadata: metadataWith('mode', 'left') })) {
      if (response.priceList?.version === 'v2') break;
    }
    while (!streamsEnded.includes('left')) await new Promise((resolve) => setImmediate(resolve));
  });
});
