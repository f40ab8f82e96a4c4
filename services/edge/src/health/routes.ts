import type { Express } from 'express';
import { DomainError } from '@gateway/lib/errors';
import { isDraining } from '@gateway/lib/lifecycle';
import type { EdgeDeps } from '../deps';

/**
 * Liveness (/healthz: the process answers) and readiness (/readyz: its
 * backends serve, and the process is not shutting down: from SIGTERM on it
 * answers 503 while it still serves, so balancers stop sending to it).
 */
export function registerHealthRoutes(app: Express, { readiness }: EdgeDeps): void {
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  app.get('/readyz', async (_req, res) => {
    if (isDraining()) throw new DomainError('unavailable', 'Not ready: shutting down.');
    const results = await Promise.all(readiness.map(async (probe) => ({ name: probe.name, serving: await probe.isServing() })));
    const down = results.filter(({ serving }) => !serving).map(({ name }) => name);
    if (down.length > 0) {
      throw new DomainError('unavailable', `Not ready: the ${down.join(', ')} service${down.length > 1 ? 's are' : ' is'} not serving.`);
    }
    res.json({ status: 'ready', dependencies: Object.fromEntries(results.map(({ name }) => [name, 'serving'])) });
  });
}
