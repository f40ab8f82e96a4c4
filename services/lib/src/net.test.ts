import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { freePort } from './net';

function listenOn(port: number): Promise<() => Promise<void>> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(() => new Promise<void>((done) => server.close(() => done()))));
  });
}

describe('freePort', () => {
  it('gives a port that can be listened on, outside the range the kernel assigns by itself', async () => {
    const port = await freePort();
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    expect(port).toBeLessThan(Number(low));
    const close = await listenOn(port);
    await close();
  });
});
