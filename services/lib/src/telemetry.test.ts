import { ConfigError } from './config';
import { CAPTURE_REQUEST_HEADERS, capturedHeaders } from './http-spans';

describe('capturedHeaders', () => {
  it('reads the comma-separated list, lower-cased, or the default when unset', () => {
    expect(capturedHeaders(CAPTURE_REQUEST_HEADERS, 'x-request-id', {})).toEqual(['x-request-id']);
    expect(capturedHeaders(CAPTURE_REQUEST_HEADERS, 'x-request-id', { [CAPTURE_REQUEST_HEADERS]: ' X-Request-Id, x-service-agent-id ,' })).toEqual([
      'x-request-id',
      'x-service-agent-id',
    ]);
    expect(capturedHeaders(CAPTURE_REQUEST_HEADERS, 'x-request-id', { [CAPTURE_REQUEST_HEADERS]: '' })).toEqual([]);
  });

  it.each(['authorization', 'Cookie', 'x-api-key', 'x-goog-api-key', 'proxy-authorization', 'x-session-token'])('refuses %s, which may carry a credential', (header) => {
    const read = () => capturedHeaders(CAPTURE_REQUEST_HEADERS, '', { [CAPTURE_REQUEST_HEADERS]: `x-request-id,${header}` });
    expect(read).toThrow(ConfigError);
    expect(read).toThrow(`${CAPTURE_REQUEST_HEADERS}: ${header.toLowerCase()} may carry a credential, which never goes into a trace`);
  });
});
