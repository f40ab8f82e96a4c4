/**
 * The collector of `bench:compare --traces exported`: the least an OTLP/HTTP
 * trace receiver can be (node:http, no framework), standing in for the
 * overlay's otel-collector so that the stack exports its traces as deployed
 * and pays what that costs, while the receiver's own work stays in its own
 * process. It reads each export's body, counts it, and answers 200 with an
 * empty ExportTraceServiceResponse; it parses nothing. `GET /stats` gives the
 * exports and bytes received so far. Prints the port it bound on stdout.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

let exports = 0;
let bytes = 0;

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stats') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ exports, bytes }));
    return;
  }
  req.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
  });
  req.on('end', () => {
    exports += 1;
    // An empty message is a valid ExportTraceServiceResponse in both of OTLP/HTTP's encodings.
    const json = (req.headers['content-type'] ?? '').includes('json');
    res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
    res.end(json ? '{}' : '');
  });
});

server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
