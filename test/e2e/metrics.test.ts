import './support/catalog';
import { findCredentials } from '../support/secrets-scan';
import { scrape, total } from '../support/prometheus';
import { eventually } from './support/eventually';
import { startE2e, type Caller, type E2e } from './support/harness';
import { routingPolicyHeld } from './support/routing-policy';

/**
 * Prometheus metrics per service (docs/decisions.md#metrics), scraped from the real
 * processes after real traffic: the gateway's requests by route and
 * status, each gRPC hop on both ends, why auth refused a credential (the
 * reason the caller never sees), the routing decisions and what the ledger
 * took and wrote. No label carries a credential.
 */
jest.setTimeout(90_000);

let e2e: E2e;
let caller: Caller;

beforeAll(async () => {
  e2e = await startE2e('e2e_metrics');
  caller = await e2e.seed({ plan: 'simulated' });
  // Until edge holds the router's routing policy it asks Route; with it, edge routes and counts the decision.
  await routingPolicyHeld(e2e.stack.services.edge);
  await e2e.client(caller.key).chat.completions.create({ model: 'auto', messages: [{ role: 'user', content: 'Hello.' }] });
  // Same selector, another secret; then a selector no key has. Both are the same 401 to the caller.
  const wrongSecret = `${caller.key.slice(0, 17)}${'0'.repeat(48)}`;
  const unknownSelector = `${caller.key.slice(0, 9)}ffffffff${caller.key.slice(17)}`;
  for (const key of [wrongSecret, unknownSelector]) {
    await expect(e2e.client(key).chat.completions.create({ model: 'auto', messages: [{ role: 'user', content: 'Hello.' }] })).rejects.toMatchObject({ status: 401 });
  }
});

afterAll(async () => {
  await e2e?.close();
});

describe('Prometheus metrics', () => {
  it('counts the gateway requests on edge by route template and status, and its calls to the provider', async () => {
    const { samples } = await scrape(e2e.stack.services.edge.metricsPort);
    const route = '/api/gateway/v1/chat/completions';
    expect(total(samples, 'edge_http_duration_count', { http_route: route, http_response_status_code: '200' })).toBe(1);
    expect(total(samples, 'edge_http_duration_count', { http_route: route, http_response_status_code: '401', error_type: 'auth' })).toBe(2);
    expect(total(samples, 'edge_provider_duration_count', { stream: 'false' })).toBe(1);
    // No Price, no Route and no CheckQuota: edge prices, routes and admits with the price list, the routing policy and the lease it holds.
    for (const method of ['Lease', 'StreamRecords']) {
      expect(total(samples, 'rpc_client_duration_count', { rpc_method: method, rpc_grpc_status_code: '0' })).toBeGreaterThanOrEqual(1);
    }
    expect(total(samples, 'rpc_client_duration_count', { rpc_method: 'Route' })).toBe(0);
  });

  it("gives auth's reason for each refused credential, which the 401 body never shows", async () => {
    const { samples } = await scrape(e2e.stack.services.auth.metricsPort);
    const authenticate = { rpc_service: 'gateway.auth.v1.AuthService', rpc_method: 'Authenticate' };
    expect(total(samples, 'rpc_server_duration_count', { ...authenticate, rpc_grpc_status_code: '0' })).toBe(1);
    expect(total(samples, 'rpc_server_duration_count', { ...authenticate, error_type: 'auth', reason: 'wrong_secret' })).toBe(1);
    expect(total(samples, 'rpc_server_duration_count', { ...authenticate, error_type: 'auth', reason: 'unknown_key' })).toBe(1);
  });

  it('counts routing decisions by tier and model where they are made, and what the ledger leased, took and wrote', async () => {
    const edge = await scrape(e2e.stack.services.edge.metricsPort);
    expect(total(edge.samples, 'router_decisions_total', { tier: 'simple', model: 'sim-small', routed: 'true' })).toBe(1);
    const router = await scrape(e2e.stack.services.router.metricsPort);
    expect(total(router.samples, 'router_decisions_total')).toBe(0);
    const ledger = await scrape(e2e.stack.services.ledger.metricsPort);
    // The call's Lease, and perhaps the give-back of edge's idle lease since.
    expect(total(ledger.samples, 'ledger_leases_total', { granted: 'true', meter: 'spend' })).toBeGreaterThanOrEqual(1);
    expect(total(ledger.samples, 'ledger_records_total', { accepted: 'true' })).toBe(1);
    // The writer drains the queue on its own schedule.
    await eventually(async () => {
      const { samples } = await scrape(e2e.stack.services.ledger.metricsPort);
      return total(samples, 'ledger_writer_records_total', { outcome: 'written' }) === 1 ? true : undefined;
    }, 'the record written to Postgres');
  });

  it("reports each service's event loop utilization and its garbage collections' pauses by kind", async () => {
    for (const name of ['edge', 'auth', 'router', 'pricing', 'ledger', 'usage', 'agent'] as const) {
      const { samples } = await scrape(e2e.stack.services[name].metricsPort);
      const utilization = samples.filter((sample) => sample.name === 'nodejs_eventloop_utilization');
      expect(utilization).toHaveLength(1);
      expect(utilization[0]?.value).toBeGreaterThan(0);
      expect(utilization[0]?.value).toBeLessThanOrEqual(1);
    }
    // Serving the calls above allocated enough for scavenges in the processes they went through.
    for (const name of ['edge', 'ledger'] as const) {
      const { samples } = await scrape(e2e.stack.services[name].metricsPort);
      expect(total(samples, 'nodejs_gc_duration_count', { gc_type: 'minor' })).toBeGreaterThan(0);
      expect(total(samples, 'nodejs_gc_duration_sum', { gc_type: 'minor' })).toBeGreaterThan(0);
    }
  });

  it('serves every service, only at GET /metrics, with no credential in any series', async () => {
    for (const name of ['edge', 'auth', 'router', 'pricing', 'ledger', 'usage', 'agent'] as const) {
      const { metricsPort } = e2e.stack.services[name];
      const { text } = await scrape(metricsPort);
      expect(findCredentials(text)).toEqual([]);
      expect(text).not.toContain(caller.key.slice(17));
      expect((await fetch(`http://127.0.0.1:${metricsPort}/`)).status).toBe(404);
    }
  });
});
