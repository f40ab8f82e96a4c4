import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { findCredentials } from '../support/secrets-scan';
import { startEmbedded, stop } from './support/embedded-process';
import { eventually } from './support/eventually';

jest.setTimeout(120_000);

interface UsageBody {
  to?: string;
  totals: { requests: number; cost_usd: string; unpriced_requests: number };
}

async function usage(url: string, headers: Record<string, string>): Promise<UsageBody> {
  const response = await fetch(url, { headers });
  expect(response.status).toBe(200);
  return (await response.json()) as UsageBody;
}

const dataDir = mkdtempSync(join(tmpdir(), 'gateway-embedded-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('npm start (the embedded default)', () => {
  let apiKey = '';
  let password = '';

  it('creates a demo organization, owner and key at first start, and serves the gateway', async () => {
    const embedded = await startEmbedded(dataDir);
    try {
      apiKey = /API key:\s+(svc_test_[0-9a-f]{56})/.exec(embedded.output())?.[1] ?? '';
      password = /password:\s+(\S+)/.exec(embedded.output())?.[1] ?? '';
      expect(apiKey).not.toBe('');
      expect(password).not.toBe('');
      const openai = new OpenAI({ apiKey, baseURL: `http://127.0.0.1:${embedded.port}/api/gateway/v1`, maxRetries: 0 });
      const { data, response } = await openai.chat.completions
        .create({ model: 'auto', messages: [{ role: 'user', content: 'Hello from the embedded mode.' }] })
        .withResponse();
      expect(data.choices[0]?.message.content).toBeTruthy();
      expect(response.headers.get('x-service-principal')).toBe('api_key');
      // Edge holds the router's routing policy here too, from the handlers in the same process.
      await eventually(async () => (embedded.output().includes('routing policy received') ? true : undefined), 'edge holding the routing policy');
      expect(response.headers.get('x-service-metered')).toBe('true');
      expect(response.headers.get('x-service-cost-usd')).toMatch(/^\d+\.\d{6}$/);
      // The usage service reads the same PGlite (the in-process writer commits a moment after the
      // answer): the call shows up, at the cost the client was told.
      const report = await eventually(async () => {
        const body = await usage(`http://127.0.0.1:${embedded.port}/api/v1/usage?range=7d&group_by=model`, { authorization: `Bearer ${apiKey}` });
        return body.totals.requests > 0 ? body : undefined;
      }, 'the call in the usage report');
      expect(report.totals).toMatchObject({ requests: 1, cost_usd: response.headers.get('x-service-cost-usd'), unpriced_requests: 0 });
      // The welcome names where the process's metrics are; they count the call by its route.
      const metricsUrl = /Prometheus metrics: (http:\/\/\S+\/metrics)/.exec(embedded.output())?.[1];
      expect(metricsUrl).toBeDefined();
      const metrics = await (await fetch(metricsUrl ?? '')).text();
      expect(metrics).toMatch(/^edge_http_duration_count\{[^}]*http_route="\/api\/gateway\/v1\/chat\/completions"[^}]*http_response_status_code="200"[^}]*\} 1$/m);
      expect(findCredentials(metrics)).toEqual([]);
      // The Console is served from the same door, built at first start when it was not built yet.
      expect(embedded.output()).toContain(`The Console: http://127.0.0.1:${embedded.port}/console/`);
      const consolePage = await fetch(`http://127.0.0.1:${embedded.port}/console/`);
      expect(consolePage.status).toBe(200);
      expect(consolePage.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(await consolePage.text()).toMatch(/<script type="module" crossorigin src="\/console\/assets\/index-[\w-]+\.js"><\/script>/);
      // Only the one-time welcome shows the key: no log line carries it.
      const logLines = embedded.output().split('\n').filter((line) => line.startsWith('{'));
      expect(findCredentials(logLines.join('\n'))).toEqual([]);
    } finally {
      expect(await stop(embedded)).toBe(0);
    }
  });

  it('keeps its data across a restart: the same key and password still work, nothing is shown again', async () => {
    const embedded = await startEmbedded(dataDir);
    try {
      expect(findCredentials(embedded.output())).toEqual([]);
      expect(embedded.output()).toContain('demo@example.com exists');
      const base = `http://127.0.0.1:${embedded.port}`;
      const signIn = await fetch(`${base}/api/auth/v1/token?grant_type=password`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'demo@example.com', password }),
      });
      expect(signIn.status).toBe(200);
      // The demo owner has an agent record: the agent API answers through the same gateway.
      const { access_token: accessToken, user } = (await signIn.json()) as { access_token: string; user: { memberships: Array<{ organization_id: string }> } };
      const agent = (path: string, body?: unknown) =>
        fetch(`${base}/api/agent${path}`, {
          method: body === undefined ? 'GET' : 'POST',
          headers: { authorization: `Bearer ${accessToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      const status = await agent('/status?include=health');
      expect(status.status).toBe(200);
      expect(await status.json()).toMatchObject({ agent: { plan_tier: 'simulated', status: 'running' }, health: { status: 'ok' } });
      const chat = await agent('/chat', { message: 'Remember this with the remember tool, please.' });
      expect(chat.status).toBe(200);
      expect(await chat.json()).toMatchObject({ reply: { role: 'assistant' }, tool_runs: [{ tool: { name: 'remember', ok: true } }] });
      const openai = new OpenAI({ apiKey, baseURL: `${base}/api/gateway/v1`, maxRetries: 0 });
      const { response } = await openai.chat.completions
        .create({ model: 'auto', messages: [{ role: 'user', content: 'Still there?' }] })
        .withResponse();
      expect(response.status).toBe(200);
      // The Console's usage for the demo owner and the key's: the same report, with the calls of
      // both starts and the agent's own calls through the gateway.
      const org = user.memberships[0]?.organization_id ?? '';
      const [byConsole, byKey] = await eventually(async () => {
        const reports = await Promise.all([
          usage(`${base}/api/v1/orgs/${org}/usage?range=7d`, { authorization: `Bearer ${accessToken}` }),
          usage(`${base}/api/v1/usage?range=7d`, { authorization: `Bearer ${apiKey}` }),
        ]);
        const [consoleReport, keyReport] = reports.map((report) => JSON.stringify({ ...report, to: undefined }));
        return reports[1].totals.requests > 2 && consoleReport === keyReport ? reports : undefined;
      }, 'the same report on both routes, with the calls of both starts and the agent');
      expect({ ...byConsole, to: undefined }).toEqual({ ...byKey, to: undefined });
      // edge keeps recent verifications here too; auth empties them as it revokes, so the very next call is refused.
      const keys = (await (await fetch(`${base}/api/v1/orgs/${org}/keys`, { headers: { authorization: `Bearer ${accessToken}` } })).json()) as { active: Array<{ id: string; prefix: string }> };
      const demoKey = keys.active.find(({ prefix }) => apiKey.startsWith(prefix));
      expect(demoKey).toBeDefined();
      const revoke = await fetch(`${base}/api/v1/orgs/${org}/keys/${demoKey?.id ?? ''}/revoke`, { method: 'POST', headers: { authorization: `Bearer ${accessToken}` } });
      expect(revoke.status).toBe(200);
      const refused = await openai.chat.completions.create({ model: 'auto', messages: [{ role: 'user', content: 'And now?' }] }).catch((error: unknown) => error);
      expect(refused).toMatchObject({ status: 401 });
    } finally {
      expect(await stop(embedded)).toBe(0);
    }
  });
});
