import { startFakeEdge } from '../../test/support/fake-auth';
import { call, expectError } from '../../test/support/http';

describe('health routes', () => {
  it('is live whatever its dependencies, and ready only when each serves', async () => {
    const state = { auth: true, router: true };
    const edge = await startFakeEdge(
      {},
      {
        readiness: [
          { name: 'auth', isServing: async () => state.auth },
          { name: 'router', isServing: async () => state.router },
        ],
      },
    );
    try {
      expect(await call(edge.url, '/readyz')).toMatchObject({ status: 200, body: { status: 'ready', dependencies: { auth: 'serving', router: 'serving' } } });
      state.auth = false;
      expect(expectError(await call(edge.url, '/readyz'), 503, 'internal').message).toBe('Not ready: the auth service is not serving.');
      state.router = false;
      expect(expectError(await call(edge.url, '/readyz'), 503, 'internal').message).toBe('Not ready: the auth, router services are not serving.');
      expect(await call(edge.url, '/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
    } finally {
      await edge.stop();
    }
  });
});
