import { request, Agent } from 'node:http';
import { ConfigError, loadConfig } from '@gateway/lib/config';
import { startFakeEdge } from '../../test/support/fake-auth';
import { keepAliveConfigShape } from '../config';

/**
 * Edge keeps an idle connection open longer than the pools in front of it
 * keep theirs (HTTP_KEEP_ALIVE_TIMEOUT_MS), and says so in `Keep-Alive`,
 * which clients such as undici read to close theirs first.
 */
describe("edge's kept-alive connections", () => {
  it('stay open 65 s by default, longer than a proxy keeps an idle connection (60 s)', () => {
    expect(loadConfig(keepAliveConfigShape, {}).HTTP_KEEP_ALIVE_TIMEOUT_MS).toBe(65_000);
  });

  it('refuses a timeout that is not a positive whole number of ms, naming the variable', () => {
    for (const value of ['0', '-1', 'a minute', '1.5']) {
      expect(() => loadConfig(keepAliveConfigShape, { HTTP_KEEP_ALIVE_TIMEOUT_MS: value })).toThrow(ConfigError);
      expect(() => loadConfig(keepAliveConfigShape, { HTTP_KEEP_ALIVE_TIMEOUT_MS: value })).toThrow(/HTTP_KEEP_ALIVE_TIMEOUT_MS/);
    }
  });

  it('tell the client how long the server keeps them, on the real server', async () => {
    const edge = await startFakeEdge({});
    const agent = new Agent({ keepAlive: true });
    try {
      const headers = await new Promise<Record<string, string | string[] | undefined>>((resolve, reject) => {
        request(`${edge.url}/healthz`, { agent }, (response) => {
          response.resume();
          response.on('end', () => resolve(response.headers));
        })
          .on('error', reject)
          .end();
      });
      expect({ connection: headers.connection, keepAlive: headers['keep-alive'] }).toEqual({ connection: 'keep-alive', keepAlive: 'timeout=65' });
    } finally {
      agent.destroy();
      await edge.stop();
    }
  });
});
