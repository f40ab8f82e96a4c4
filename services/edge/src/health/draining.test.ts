import { beginDraining } from '@gateway/lib/lifecycle';
import { startFakeEdge } from '../../test/support/fake-auth';
import { call, expectError } from '../../test/support/http';

/**
 * From SIGTERM on, /readyz answers 503 (its own file: draining is for the
 * whole process), while edge still answers every other request until it
 * stops accepting.
 */
it('is not ready once the process drains, and still answers', async () => {
  const edge = await startFakeEdge({}, { readiness: [{ name: 'auth', isServing: async () => true }] });
  try {
    expect(await call(edge.url, '/readyz')).toMatchObject({ status: 200 });
    beginDraining();
    expect(expectError(await call(edge.url, '/readyz'), 503, 'internal').message).toBe('Not ready: shutting down.');
    expect(await call(edge.url, '/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
  } finally {
    await edge.stop();
  }
});
