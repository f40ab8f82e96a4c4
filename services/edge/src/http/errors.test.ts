import { DomainError } from '@gateway/lib/errors';
import { call, eventually, expectError } from '../../test/support/http';
import { startFakeEdge, type RunningFakeEdge } from '../../test/support/fake-auth';
import { REQUEST_ID_HEADER } from './request-id';

describe('the one error path', () => {
  let edge: RunningFakeEdge;
  const failures: { next: unknown } = { next: undefined };

  beforeAll(async () => {
    edge = await startFakeEdge(
      {
        // The login route is the probe: it rethrows whatever the test queued.
        login: async () => {
          throw failures.next;
        },
      },
      { settings: { bodyLimitBytes: 256 } },
    );
  });
  afterAll(() => edge.stop());

  const login = (body: unknown = { email: 'a@example.com', password: 'pw' }, headers?: Record<string, string>) =>
    call(edge.url, '/api/auth/v1/token?grant_type=password', { method: 'POST', body, ...(headers ? { headers } : {}) });

  it('puts a 32-hex request id on a success and no x-powered-by', async () => {
    const response = await call(edge.url, '/healthz');
    expect(response.status).toBe(200);
    expect(response.headers.get(REQUEST_ID_HEADER)).toMatch(/^[0-9a-f]{32}$/);
    expect(response.headers.get('x-powered-by')).toBeNull();
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('gives every request its own id', async () => {
    const [first, second] = await Promise.all([call(edge.url, '/healthz'), call(edge.url, '/healthz')]);
    expect(first.headers.get(REQUEST_ID_HEADER)).not.toBe(second.headers.get(REQUEST_ID_HEADER));
  });

  it('answers an unknown route with 404 not_found', async () => {
    expectError(await call(edge.url, '/api/v1/nothing-here'), 404, 'not_found');
    expectError(await call(edge.url, '/api/auth/v1/token?grant_type=password', { method: 'DELETE' }), 404, 'not_found');
  });

  it('renders a DomainError with its status, class and retry-after', async () => {
    failures.next = new DomainError('rate_limit', 'Too many failed sign-ins. Try again later.', { retryAfterSeconds: 42 });
    const response = await login();
    expect(expectError(response, 429, 'rate_limit').message).toBe('Too many failed sign-ins. Try again later.');
    expect(response.headers.get('retry-after')).toBe('42');
  });

  it('hides anything else behind a generic 500 internal, logged once, without a stack', async () => {
    failures.next = new TypeError('cannot read properties of undefined (secret detail)');
    const response = await login();
    const error = expectError(response, 500, 'internal');
    expect(error.message).toBe('Internal error. Report it with the request id.');
    expect(response.text).not.toMatch(/secret detail|TypeError|at .*\.ts/);
    const logged = edge.logs.lines().filter((line) => line.msg === 'unhandled error' && line.request_id === error.request_id);
    expect(logged).toHaveLength(1);
  });

  it('rejects malformed JSON with 400 naming the body, without echoing it', async () => {
    const response = await login('{"email": "svc_test_not-json');
    expect(expectError(response, 400, 'validation').message).toMatch(/request body is not valid JSON/);
    expect(response.text).not.toContain('svc_test_not-json');
  });

  it('rejects a body over the limit with 413', async () => {
    const response = await login({ email: 'a@example.com', password: 'x'.repeat(1000) });
    expect(expectError(response, 413, 'validation').message).toMatch(/larger than the limit of 256 bytes/);
  });

  it('rejects a body that is not JSON with 400 naming the content type', async () => {
    const response = await login('email=a', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(expectError(response, 400, 'validation').message).toMatch(/Content-Type: application\/json/);
  });

  it('logs each request once with its route template, never its headers or body', async () => {
    const response = await call(edge.url, '/api/v1/orgs/not-a-uuid/keys', { bearer: 'svc_test_abc' });
    const requestId = response.headers.get(REQUEST_ID_HEADER);
    const lines = await eventually(() => {
      const found = edge.logs.lines().filter((line) => line.request_id === requestId);
      return found.length > 0 ? found : undefined;
    });
    expect(lines).toEqual([
      expect.objectContaining({ msg: 'request', method: 'GET', route: '/api/v1/orgs/:org/keys', status: 401, error_type: 'auth' }),
    ]);
    expect(edge.logs.output()).not.toContain('svc_test_abc');
  });
});
