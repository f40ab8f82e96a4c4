import type { IncomingMessage } from 'node:http';
import type { Attributes } from '@opentelemetry/api';

/**
 * The attributes of an HTTP server span, as OpenTelemetry's HTTP
 * instrumentation (0.223, stable semantic conventions) set them: server and
 * client addresses from `Forwarded`, then `X-Forwarded-Host` /
 * `X-Forwarded-For`, then `Host` and the socket; the method normalized; the
 * query with signature parameters censored. Computed only for a span that
 * is recorded.
 */

/** Methods kept as they are in `http.request.method`; any other is `_OTHER`, the original beside it. */
const KNOWN_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH', 'QUERY']);
/** Query parameters that carry signatures, censored in `url.query`. */
const REDACTED_QUERY_PARAMETERS = ['sig', 'Signature', 'AWSAccessKeyId', 'X-Goog-Signature'];
const REDACTED = 'REDACTED';

const firstOf = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** The elements of an RFC 7239 `Forwarded` header, each a map of its parameters (lower-cased names, quotes removed). */
function forwardedElements(header: string): Array<Map<string, string>> {
  return header.split(',').map(
    (element) =>
      new Map(
        element
          .split(';')
          .map((pair) => pair.split('='))
          .filter((parts): parts is [string, string] => parts.length === 2)
          .map(([name, value]) => [name.trim().toLowerCase(), value.trim().replace(/^"(.*)"$/, '$1')]),
      ),
  );
}

/** `host[:port]` or `[v6][:port]`, with the port the protocol implies when none is given. */
function hostAndPort(header: string, proto?: string): { host: string; port?: string } {
  const defaultPort = proto === 'http' ? '80' : proto === 'https' ? '443' : undefined;
  const parts = header.split(':');
  if (parts.length === 1) return { host: header, ...(defaultPort ? { port: defaultPort } : {}) };
  if (parts.length === 2) return { host: parts[0] ?? '', port: parts[1] ?? '' };
  if (header.startsWith('[')) {
    if (header.endsWith(']')) return { host: header, ...(defaultPort ? { port: defaultPort } : {}) };
    if (parts[parts.length - 2]?.endsWith(']')) return { host: parts.slice(0, -1).join(':'), port: parts[parts.length - 1] ?? '' };
  }
  return { host: header };
}

function serverAddress(request: IncomingMessage): { host: string; port?: string } | undefined {
  const forwarded = firstOf(request.headers.forwarded);
  if (forwarded) {
    for (const element of forwardedElements(forwarded)) {
      const host = element.get('host');
      if (host) return hostAndPort(host, element.get('proto'));
    }
  }
  const forwardedHost = firstOf(request.headers['x-forwarded-host']);
  if (forwardedHost) return hostAndPort(forwardedHost, firstOf(request.headers['x-forwarded-proto']));
  const host = request.headers.host;
  return host ? hostAndPort(host, 'http') : undefined;
}

/** An address without its port (`[v6]:port` and `v4:port` alike). */
function withoutPort(address: string): string {
  try {
    const { hostname } = new URL(`http://${address}`);
    return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  } catch {
    return address;
  }
}

function clientAddress(request: IncomingMessage): string | undefined {
  const forwarded = firstOf(request.headers.forwarded);
  if (forwarded) {
    for (const element of forwardedElements(forwarded)) {
      const address = element.get('for');
      if (address) return withoutPort(address);
    }
  }
  const forwardedFor = firstOf(request.headers['x-forwarded-for'])?.split(',')[0]?.trim();
  if (forwardedFor) return withoutPort(forwardedFor);
  return request.socket.remoteAddress;
}

/** `http.<kind>.header.<name>` for each of `names` the message has. */
export function captured(kind: 'request' | 'response', names: readonly string[], read: (name: string) => unknown, into: Attributes): void {
  for (const name of names) {
    const value = read(name);
    if (value === undefined) continue;
    into[`http.${kind}.header.${name}`] = Array.isArray(value) ? value.map(String) : [String(value)];
  }
}

export function requestAttributes(request: IncomingMessage, requestHeaders: readonly string[]): Attributes {
  const method = request.method ?? 'GET';
  const known = KNOWN_METHODS.has(method);
  const server = serverAddress(request);
  const attributes: Attributes = {
    'http.request.method': known ? method : '_OTHER',
    'url.scheme': 'http',
    'server.address': server?.host,
    'network.peer.address': request.socket.remoteAddress,
    'network.peer.port': request.socket.remotePort,
    'network.protocol.version': request.httpVersion,
    'user_agent.original': request.headers['user-agent'],
  };
  try {
    const url = new URL(request.url ?? '/', `http://${request.headers.host ?? 'localhost'}`);
    attributes['url.path'] = url.pathname;
    if (url.search) {
      for (const parameter of REDACTED_QUERY_PARAMETERS) if (url.searchParams.has(parameter)) url.searchParams.set(parameter, REDACTED);
      attributes['url.query'] = url.searchParams.toString();
    }
  } catch {
    // A request line no URL parser accepts: the span goes without its URL.
  }
  const client = clientAddress(request);
  if (client) attributes['client.address'] = client;
  if (server?.port !== undefined) attributes['server.port'] = Number(server.port);
  if (!known) attributes['http.request.method_original'] = method;
  captured('request', requestHeaders, (name) => request.headers[name], attributes);
  return attributes;
}
