import type { IncomingMessage } from 'node:http';
import { requestAttributes } from './http-span-attributes';

/** A request as node:http hands it over, from the socket at 127.0.0.1:50000. */
function request(headers: Record<string, string>, method = 'PATCH'): IncomingMessage {
  return { method, url: '/v1/x?sig=abc&b=2', headers, httpVersion: '1.1', socket: { remoteAddress: '127.0.0.1', remotePort: 50000 } } as unknown as IncomingMessage;
}

/** The addresses, as OpenTelemetry's HTTP instrumentation 0.223 set them for the same requests. */
const addresses = (attributes: ReturnType<typeof requestAttributes>) => ({
  server: attributes['server.address'],
  port: attributes['server.port'],
  client: attributes['client.address'],
});

describe('the attributes of an HTTP server span', () => {
  it('read the server from Host, with the port http implies, and censor signatures in the query', () => {
    const attributes = requestAttributes(request({ host: 'api.example.com', 'user-agent': 'test/1', 'x-request-id': 'ingress-1' }), ['x-request-id']);
    expect(attributes).toEqual({
      'http.request.method': 'PATCH',
      'url.scheme': 'http',
      'server.address': 'api.example.com',
      'server.port': 80,
      'network.peer.address': '127.0.0.1',
      'network.peer.port': 50000,
      'network.protocol.version': '1.1',
      'user_agent.original': 'test/1',
      'url.path': '/v1/x',
      'url.query': 'sig=REDACTED&b=2',
      'client.address': '127.0.0.1',
      'http.request.header.x-request-id': ['ingress-1'],
    });
  });

  it.each([
    [{ host: 'api.example.com:8080', forwarded: 'for=192.0.2.60;proto=https;host=gw.example.com, for=10.0.0.1' }, { server: 'gw.example.com', port: 443, client: '192.0.2.60' }],
    [
      { host: 'api.example.com', 'x-forwarded-host': 'gw.example.com:8443', 'x-forwarded-for': '203.0.113.7:5555, 10.0.0.1', 'x-forwarded-proto': 'https' },
      { server: 'gw.example.com', port: 8443, client: '203.0.113.7' },
    ],
    [{ host: 'api.example.com', 'x-forwarded-host': 'gw.example.com', 'x-forwarded-proto': 'https', 'x-forwarded-for': '[2001:db8::1]:4711' }, { server: 'gw.example.com', port: 443, client: '2001:db8::1' }],
    [{ host: '[::1]:9000' }, { server: '[::1]', port: 9000, client: '127.0.0.1' }],
  ])('read what a proxy in front says first: %j', (headers, expected) => {
    expect(addresses(requestAttributes(request(headers), []))).toEqual(expected);
  });

  it('give an unknown method as _OTHER, with the original beside it', () => {
    expect(requestAttributes(request({ host: 'api.example.com' }, 'PURGE'), [])).toMatchObject({ 'http.request.method': '_OTHER', 'http.request.method_original': 'PURGE' });
  });
});
