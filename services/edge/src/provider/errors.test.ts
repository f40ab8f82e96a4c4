import { retryAfterSeconds, transportError, upstreamStatusError, type UpstreamContext } from './errors';

const context: UpstreamContext = { provider: 'openai', origin: 'https://api.example.com', mode: 'managed', apiKey: 'sk-secret-key-0123456789' };
const body = (message: string, param?: string) => JSON.stringify({ error: { message, type: 'invalid_request_error', param: param ?? null, code: null } });

describe('upstreamStatusError', () => {
  it('passes a 400 on as the caller’s validation error, without the key', () => {
    const error = upstreamStatusError(400, {}, body(`Bad value for 'stop' with key ${context.apiKey}`, 'stop'), context);
    expect(error).toMatchObject({ kind: 'validation', field: 'stop' });
    expect(error.message).toBe("Bad value for 'stop' with key [REDACTED]");
    expect(error.internalReason).not.toContain(context.apiKey);
  });

  it('says whose key the provider refused', () => {
    expect(upstreamStatusError(401, {}, body('Incorrect API key'), context).message).toBe("The model provider rejected the gateway's credentials.");
    expect(upstreamStatusError(403, {}, '', { ...context, mode: 'byok' }).message).toBe('The model provider rejected your provider key.');
  });

  it('maps 429 with retry-after, 5xx and odd statuses', () => {
    expect(upstreamStatusError(429, { 'retry-after': '12' }, '', context)).toMatchObject({ kind: 'provider_rate_limit', retryAfterSeconds: 12 });
    expect(upstreamStatusError(429, {}, '', context).retryAfterSeconds).toBeUndefined();
    expect(upstreamStatusError(500, {}, '<html>bad gateway</html>', context).kind).toBe('provider');
    expect(upstreamStatusError(404, {}, body('no such model'), context).kind).toBe('provider');
    expect(upstreamStatusError(408, {}, '', context).kind).toBe('timeout');
    expect(upstreamStatusError(413, {}, '', context).kind).toBe('payload_too_large');
  });

  it('keeps the upstream URL out of every message', () => {
    for (const status of [400, 401, 404, 429, 500, 503]) {
      expect(upstreamStatusError(status, {}, body('x'), context).message).not.toContain('api.example.com');
    }
  });
});

describe('retryAfterSeconds', () => {
  it('reads seconds, an HTTP date, or retry-after-ms', () => {
    const now = Date.UTC(2025, 0, 1, 0, 0, 0);
    expect(retryAfterSeconds({ 'retry-after': '3' }, now)).toBe(3);
    expect(retryAfterSeconds({ 'retry-after': '1.2' }, now)).toBe(2);
    expect(retryAfterSeconds({ 'retry-after': new Date(now + 30_500).toUTCString() }, now)).toBe(30);
    expect(retryAfterSeconds({ 'retry-after-ms': '1500' }, now)).toBe(2);
    expect(retryAfterSeconds({ 'retry-after': 'soon' }, now)).toBeUndefined();
  });
});

describe('transportError', () => {
  const coded = (code: string) => Object.assign(new Error(code), { code });

  it('maps timeouts, unreachable hosts and broken connections', () => {
    expect(transportError(coded('UND_ERR_HEADERS_TIMEOUT'), context, 1000, false).kind).toBe('timeout');
    expect(transportError(new Error('aborted'), context, 1000, true).kind).toBe('timeout');
    expect(transportError(coded('ECONNREFUSED'), context, 1000, false).message).toBe('The model provider could not be reached. Retry the request.');
    expect(transportError(coded('UND_ERR_SOCKET'), context, 1000, false).kind).toBe('provider');
  });
});
