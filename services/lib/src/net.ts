import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * Ports the kernel hands out on its own (to outgoing connections and to
 * listeners on port 0) come from this range. A port chosen below it is taken
 * only by a process that asks for that very port.
 */
function ephemeralRangeStart(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    const start = Number(low);
    return Number.isInteger(start) && start > 1024 ? start : 32768;
  } catch {
    return 32768;
  }
}

const LOWEST_CHOSEN_PORT = 10_000;
const ATTEMPTS = 50;

function bindable(port: number, host: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, host, () => {
      const address = server.address();
      const bound = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(bound > 0 ? bound : undefined));
    });
  });
}

/**
 * A TCP port free right now on the host, for two services that must each
 * know the other's address before either starts (edge and the agent). The
 * port is released before it is returned, so it is picked at random below
 * the ephemeral range: a port the kernel assigns to port-0 listeners or to
 * outgoing connections (which a busy test machine makes by the thousand)
 * cannot land on it in between. Use it for local runs and tests, never where
 * ports are assigned.
 */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const highest = ephemeralRangeStart() - 1;
  for (let attempt = 0; highest > LOWEST_CHOSEN_PORT && attempt < ATTEMPTS; attempt += 1) {
    const candidate = LOWEST_CHOSEN_PORT + Math.floor(Math.random() * (highest - LOWEST_CHOSEN_PORT + 1));
    const port = await bindable(candidate, host);
    if (port !== undefined) return port;
  }
  const port = await bindable(0, host);
  if (port === undefined) throw new Error('no port was assigned');
  return port;
}
