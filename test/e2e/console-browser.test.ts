/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The page's code below runs in the browser (page.evaluate), hence the DOM's types.
import './support/catalog';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { addMember, createAgent, createKey, createOrganization, createUser } from '@gateway/auth/admin';
import { createRedis } from '@gateway/lib/redis';
import { APIError } from 'openai';
import type { Browser, BrowserContext, Page, Response as PlaywrightResponse } from 'playwright-core';
import { buildConsole } from '../../services/embedded/src/console-build';
import { seedTraces } from '../bench/support/traces';
import { testRedisUrl } from '../support/databases';
import { REPO_ROOT } from '../support/paths';
import { launchChromium } from './support/browser';
import { eventually } from './support/eventually';
import { startE2e, type E2e } from './support/harness';
import { counter, periodKeys } from './support/burst';
import { committedTrace } from './support/ledger';

/**
 * The Console in a real browser (Debian's Chromium driven by playwright-core)
 * against the multi-process stack: what a person sees and does, end to end,
 * with the gateway called through the official client in between. Each page
 * is saved as a screenshot under .tmp/console-screenshots; the figures of the
 * Console's README (first-load JavaScript, time to draw 90 days by day) are
 * printed and written to .tmp/console-figures.json.
 */
jest.setTimeout(300_000);

const SCREENSHOTS = join(REPO_ROOT, '.tmp', 'console-screenshots');
const FIGURES_FILE = join(REPO_ROOT, '.tmp', 'console-figures.json');
/** A short access token, so that the page's refresh before expiry happens during the run. */
const ACCESS_TOKEN_TTL_SECONDS = 60;
/** Traces of the organization the 90-day figure is measured on. */
const FIGURE_TRACES = 100_000;

interface Account {
  email: string;
  password: string;
}

let e2e: E2e;
let browser: Browser;
let consoleDir: string;
let attacker: Server;
let attackerUrl: string;
let orgId: string;
let figuresOrgId: string;
let agentId: string;
let bystanderKeyId: string;
const owner: Account = { email: `owner-${randomBytes(4).toString('hex')}@example.com`, password: `pw-${randomBytes(12).toString('hex')}` };
const member: Account = { email: `member-${randomBytes(4).toString('hex')}@example.com`, password: `pw-${randomBytes(12).toString('hex')}` };
/** Content-Security-Policy violations any page reported (there must be none). */
const violations: string[] = [];

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  consoleDir = mkdtempSync(join(tmpdir(), 'console-build-'));
  // The Console as `npm run build` makes it, into a directory of this suite's own.
  await buildConsole(consoleDir);
  e2e = await startE2e('e2e_console', {
    // Leases of 10 s: edge's idle slice goes back 6.75 s after its last answer, which the quota card's test waits for.
    serviceEnv: { edge: { CONSOLE_DIR: consoleDir }, auth: { ACCESS_TOKEN_TTL_SECONDS: String(ACCESS_TOKEN_TTL_SECONDS) }, ledger: { LEASE_TTL_MS: '10000' } },
  });
  const db = e2e.auth.db;
  orgId = (await createOrganization(db, { name: 'Acme Robotics', plan: 'simulated' })).id;
  figuresOrgId = (await createOrganization(db, { name: 'Globex Research', plan: 'simulated' })).id;
  for (const account of [owner, member]) await createUser(db, account);
  await addMember(db, { org: orgId, email: owner.email, role: 'owner' });
  await addMember(db, { org: orgId, email: member.email, role: 'member' });
  await addMember(db, { org: figuresOrgId, email: owner.email, role: 'admin' });
  agentId = (await createAgent(db, { org: orgId, ownerEmail: owner.email })).id;
  bystanderKeyId = (await createKey(db, 'test', { org: orgId, actorEmail: owner.email, name: 'ci-pipeline' })).apiKey.id;
  const now = new Date();
  await seedTraces(e2e.ledger.db, `console-${figuresOrgId}`, [figuresOrgId], FIGURE_TRACES, new Date(now.getTime() - 89 * 86_400_000), now);

  attacker = createServer((req, res) => {
    // Another origin of the same site (127.0.0.1, another port): the session cookie rides along on its requests.
    const target = new URL(req.url ?? '/', 'http://attacker').searchParams.get('target') ?? '';
    res.setHeader('content-type', 'text/html');
    res.end(`<!doctype html><form id="f" method="POST" action="${target}"></form><script>document.getElementById('f').submit()</script>`);
  });
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => (attacker ? attacker.close(resolve) : resolve(undefined)));
  await e2e?.close();
  if (consoleDir) rmSync(consoleDir, { recursive: true, force: true });
});

async function newPage(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  page.on('console', (message) => {
    if (/Content.Security.Policy/i.test(message.text())) violations.push(message.text());
  });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => console.error(`Content-Security-Policy violation: ${event.violatedDirective} ${event.blockedURI}`));
  });
  return page;
}

async function signIn(page: Page, account: Account): Promise<void> {
  await page.goto(`${e2e.stack.baseUrl}/console/`);
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'API keys' }).waitFor();
}

const shot = (page: Page, name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
const figureText = (page: Page, figure: string) => page.locator(`[data-figure="${figure}"]`).innerText();

describe('the Console in Chromium', () => {
  let context: BrowserContext;
  let page: Page;
  let secret = '';
  let keyId = '';
  let cost = '';
  const firstLoad: Array<{ url: string; bytes: number; gzipBytes: number }> = [];

  beforeAll(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await newPage(context);
  });
  afterAll(() => context?.close());

  it('signs in with email and password into HttpOnly cookies the page cannot read', async () => {
    // The first load: the scripts of the sign-in page and of the keys page it leads to.
    const recordScript = async (response: PlaywrightResponse) => {
      if (response.request().resourceType() !== 'script' || firstLoad.some(({ url }) => url === response.url())) return;
      const body = await response.body();
      firstLoad.push({ url: response.url(), bytes: body.length, gzipBytes: gzipSync(body).length });
    };
    page.on('response', recordScript);
    await page.goto(`${e2e.stack.baseUrl}/console/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await shot(page, '01-sign-in');
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/console/orgs/${orgId}/keys`);
    await page.locator(`tr[data-key-id="${bystanderKeyId}"]`).waitFor();
    page.off('response', recordScript);

    const cookies = await context.cookies(e2e.stack.baseUrl);
    const access = cookies.find(({ name }) => name === 'service-access-token');
    const refresh = (await context.cookies(`${e2e.stack.baseUrl}/api/auth/v1/token`)).find(({ name }) => name === 'service-refresh-token');
    expect(access).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(refresh).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/api/auth/v1' });
    expect(cookies.some(({ name }) => name === 'service-refresh-token')).toBe(false);
    const readable = await page.evaluate(() => ({ cookie: document.cookie, local: localStorage.length, session: sessionStorage.length }));
    expect(readable).toEqual({ cookie: '', local: 0, session: 0 });
  });

  it('lists the keys with every column, and opens the create dialog by keyboard alone', async () => {
    const row = page.locator(`tr[data-key-id="${bystanderKeyId}"]`);
    await row.waitFor();
    expect(await row.innerText()).toMatch(/ci-pipeline\s+svc_test_[0-9a-f]{8}\s+inference\s+usage:read\s+Organization/);
    await shot(page, '02-keys');

    const create = page.getByRole('button', { name: 'Create key' });
    await create.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Create an API key' }).waitFor();
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('name');
    // Every control of the dialog has a name a screen reader announces.
    const unnamed = await page.locator('dialog input, dialog select, dialog button').evaluateAll((controls) =>
      controls.filter((control) => {
        const labelled = control instanceof HTMLInputElement || control instanceof HTMLSelectElement ? (control.labels?.length ?? 0) > 0 : false;
        return !labelled && !control.getAttribute('aria-label') && !control.textContent?.trim();
      }).length,
    );
    expect(unnamed).toBe(0);
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Create key');
  });

  it('shows an error the API returns with its message and request id', async () => {
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByLabel('Name').fill('   ');
    await page.getByRole('dialog').getByRole('button', { name: 'Create key' }).click();
    const alert = page.getByRole('dialog').getByRole('alert');
    await alert.waitFor();
    const text = await alert.innerText();
    expect(text).toContain('body field "name" must not be empty');
    expect(text).toMatch(/HTTP 400 · validation · Request id [0-9a-f]{32}/);
    await shot(page, '03-create-error');
  });

  it('creates a key bound to an agent record and shows its secret once', async () => {
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('console-e2e');
    await dialog.getByLabel('30 days').check();
    await dialog.getByLabel('Bound to').selectOption(agentId);
    await shot(page, '04-create');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await page.getByText('Copy this key now. It will not be shown again.').waitFor();
    secret = await page.getByLabel('API key “console-e2e”').inputValue();
    expect(secret).toMatch(/^svc_test_[0-9a-f]{56}$/);
    await shot(page, '05-secret');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });

    const row = page.locator('tr', { hasText: 'console-e2e' });
    await row.waitFor();
    keyId = (await row.getAttribute('data-key-id')) ?? '';
    expect(await row.innerText()).toContain(secret.slice(0, 17));
    expect(await row.innerText()).toContain(`Agent ${agentId.slice(0, 8)}`);
    // Once the dialog is closed the page holds the secret nowhere it can read.
    const kept = await page.evaluate((value) => ({
      dom: document.documentElement.outerHTML.includes(value),
      storage: JSON.stringify({ ...localStorage }).includes(value) || JSON.stringify({ ...sessionStorage }).includes(value),
    }), secret);
    expect(kept).toEqual({ dom: false, storage: false });
  });

  it('calls the gateway with the new key through the openai client', async () => {
    const { data, response } = await e2e
      .client(secret)
      .chat.completions.create({ model: 'auto', messages: [{ role: 'user', content: 'Hello from the Console test.' }] })
      .withResponse();
    expect(data.choices[0]?.message.content).toBeTruthy();
    cost = response.headers.get('x-service-cost-usd') ?? '';
    expect(cost).toMatch(/^0\.\d{6}$/);
    await committedTrace(e2e.ledger.db, response.headers.get('x-service-request-id') ?? '');
    // Edge gives its idle slice of the allowance back; until then the quota card shows it held.
    const { counters } = periodKeys(e2e.stack.ledgerKeyPrefix, orgId);
    const redis = createRedis(testRedisUrl());
    try {
      await eventually(async () => ((await counter(redis, counters, 'spend_reserved')) === 0n ? true : undefined), "edge's idle lease to be given back");
    } finally {
      redis.disconnect();
    }
  });

  it('counts the call in the usage totals and chart at the cost the client was told, exactly', async () => {
    await page.getByRole('link', { name: 'Usage & quota' }).click();
    await page.getByRole('radio', { name: '7 days' }).check();
    await page.locator('[data-drawn-range="7d"]').waitFor();
    expect(await figureText(page, 'requests')).toBe('1');
    expect(await figureText(page, 'errors')).toBe('0');
    expect(await figureText(page, 'cost')).toBe(`$${cost}`);
    expect(await figureText(page, 'unpriced')).toBe('0');
    expect(await figureText(page, 'latency')).toMatch(/^\d[\d,]* ms \/ \d[\d,]* ms \/ \d[\d,]* ms$/);
    // The quota card: spent is the same exact amount, nothing held now the call has settled and edge's slice is back.
    const quota = await page.getByRole('region', { name: 'Monthly allowance' }).innerText();
    expect(quota).toMatch(new RegExp(`Spent\\s+\\$${cost.replace('.', '\\.')}`));
    expect(quota).toMatch(/Held for calls\s+\$0\.000000/);
    expect(quota).toMatch(/Allowance\s+\$10\.000000/);

    // Hovering today's bar puts its figures in the chart's legend.
    const plot = await page.locator('.u-over').boundingBox();
    if (!plot) throw new Error('the chart has no plotting area');
    await page.mouse.move(plot.x + plot.width - 2, plot.y + plot.height / 2);
    const legend = await eventually(async () => {
      const rows = await page.locator('.u-legend .u-series').evaluateAll((series) =>
        Object.fromEntries(series.map((row) => [row.querySelector('.u-label')?.textContent ?? '', row.querySelector('.u-value')?.textContent ?? ''])),
      );
      return rows.Requests === '1' ? rows : undefined;
    }, 'today in the chart legend');
    expect(legend).toMatchObject({ Requests: '1', Errors: '0', Cost: `$${cost}` });
    await shot(page, '06-usage-by-day');

    await page.getByLabel('Group by').selectOption('agent');
    // The row names the record once the page has read the organization's records.
    const agentRow = page.locator(`tr[data-group="${agentId}"]`, { hasText: `Agent ${agentId.slice(0, 8)}` });
    await agentRow.waitFor();
    expect(await agentRow.innerText()).toMatch(new RegExp(`^Agent ${agentId.slice(0, 8)}.*\\t1\\t0\\t.*\\$${cost.replace('.', '\\.')}\\t0$`, 's'));
    await shot(page, '07-usage-by-agent');
  });

  it('revokes the key after a confirmation, and the next call is refused with 401', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('button', { name: 'Revoke console-e2e' }).click();
    await page.getByRole('dialog', { name: 'Revoke “console-e2e”?' }).waitFor();
    await shot(page, '08-revoke');
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByRole('region', { name: 'Revoked' }).locator(`tr[data-key-id="${keyId}"]`).waitFor();
    await shot(page, '09-revoked');
    const refused = await e2e
      .client(secret)
      .chat.completions.create({ model: 'auto', messages: [{ role: 'user', content: 'Still there?' }] })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(refused).toBeInstanceOf(APIError);
    expect((refused as APIError).status).toBe(401);
  });

  it('renames a key and edits its scopes, keeping it active', async () => {
    await page.getByRole('button', { name: 'Edit ci-pipeline' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit “ci-pipeline”' });
    await dialog.getByLabel('Name').fill('ci-pipeline-prod');
    await dialog.getByRole('checkbox', { name: /usage:read/ }).uncheck();
    await shot(page, '10-edit');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    const row = page.locator(`tr[data-key-id="${bystanderKeyId}"]`, { hasText: 'ci-pipeline-prod' });
    await row.waitFor();
    expect(await row.getByRole('listitem').allInnerTexts()).toEqual(['inference']);
    const stored = await e2e.auth.db.selectFrom('api_keys').select(['name', 'scopes']).where('id', '=', bystanderKeyId).executeTakeFirstOrThrow();
    expect(stored).toEqual({ name: 'ci-pipeline-prod', scopes: ['inference'] });
  });

  it('refuses a cross-site form POST that carries the session cookie, and changes nothing', async () => {
    const attack = await newPage(context);
    const target = `${e2e.stack.baseUrl}/api/v1/orgs/${orgId}/keys/${bystanderKeyId}/revoke`;
    const answer = attack.waitForResponse((response) => response.url() === target);
    await attack.goto(`${attackerUrl}/?target=${encodeURIComponent(target)}`);
    const response = await answer;
    // 403 from the guard, not 401: the browser did send the session cookie.
    expect(response.status()).toBe(403);
    expect(((await response.json()) as { error: { type: string; message: string } }).error).toMatchObject({
      type: 'permission',
      message: expect.stringContaining('Cross-site request refused'),
    });
    const stored = await e2e.auth.db.selectFrom('api_keys').select('revoked_at').where('id', '=', bystanderKeyId).executeTakeFirstOrThrow();
    expect(stored.revoked_at).toBeNull();
    await attack.close();
  });

  it('switches organizations, and shows 90 days by day over a large history', async () => {
    await page.getByLabel('Organization').selectOption(figuresOrgId);
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/console/orgs/${figuresOrgId}/keys`);
    await page.getByText('No active keys.').waitFor();

    // A fresh load of the page, as a bookmark opens it: navigation start to the chart drawn.
    await page.goto(`${e2e.stack.baseUrl}/console/orgs/${figuresOrgId}/usage?range=90d&group_by=day`);
    await page.locator('[data-drawn-range="90d"]').waitFor({ timeout: 120_000 });
    const loadMs = await page.evaluate(() => performance.getEntriesByName('console:usage-chart-drawn')[0]?.startTime ?? -1);
    expect(await figureText(page, 'requests')).toBe(FIGURE_TRACES.toLocaleString('en-US'));
    await shot(page, '11-usage-90-days');
    // From another range to 90 days, as a person clicks it.
    await page.getByRole('radio', { name: '7 days' }).check();
    await page.locator('[data-drawn-range="7d"]').waitFor({ timeout: 120_000 });
    const switchMs = await page.evaluate(async () => {
      const started = performance.now();
      const option = [...document.querySelectorAll('label')].find((label) => label.textContent === '90 days');
      option?.click();
      return new Promise<number>((resolve) => {
        const observer = new PerformanceObserver((list) => {
          const drawn = list.getEntriesByName('console:usage-chart-drawn').find((entry) => (entry as PerformanceMark).detail?.range === '90d');
          if (drawn) resolve(drawn.startTime - started);
        });
        observer.observe({ entryTypes: ['mark'] });
      });
    });
    const figures = {
      firstLoadScripts: firstLoad.map(({ url, bytes, gzipBytes }) => ({ file: new URL(url).pathname, bytes, gzipBytes })),
      firstLoadGzipBytes: firstLoad.reduce((sum, { gzipBytes }) => sum + gzipBytes, 0),
      usagePageScripts: usageChunks(consoleDir),
      ninetyDaysByDay: { traces: FIGURE_TRACES, freshLoadMs: Math.round(loadMs), switchMs: Math.round(switchMs) },
    };
    writeFileSync(FIGURES_FILE, `${JSON.stringify(figures, null, 2)}\n`);
    console.log(`Console figures:\n${JSON.stringify(figures, null, 2)}`);
    expect(figures.firstLoadGzipBytes).toBeGreaterThan(0);
  });

  it('refreshes the session before the access token expires', async () => {
    const refreshed = await page.waitForResponse((response) => response.url().includes('grant_type=refresh_token') && response.status() === 200, {
      timeout: (ACCESS_TOKEN_TTL_SECONDS + 60) * 1000,
    });
    expect(((await refreshed.json()) as { token_delivery: string }).token_delivery).toBe('cookie');
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
  });

  it('signs out: both cookies are gone and the sign-in form is back', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const names = (await context.cookies(`${e2e.stack.baseUrl}/api/auth/v1/token`)).map(({ name }) => name);
    expect(names).toEqual([]);
    expect(violations).toEqual([]);
  });
});

describe('a member in Chromium', () => {
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await newPage(context);
  });
  afterAll(() => context?.close());

  it('sees the keys read-only, and gets the API’s refusal when forcing a create', async () => {
    await signIn(page, member);
    await page.locator(`tr[data-key-id="${bystanderKeyId}"]`).waitFor();
    expect(await page.getByRole('button', { name: 'Create key' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^(Edit|Revoke) / }).count()).toBe(0);
    await page.getByText('Owners and admins create, edit and revoke them.').waitFor();
    await shot(page, '12-member-keys');
    const forced = await page.evaluate(async (org) => {
      const response = await fetch(`/api/v1/orgs/${org}/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-csrf': '1' },
        body: JSON.stringify({ name: 'not allowed' }),
      });
      return { status: response.status, body: (await response.json()) as { error: { type: string; message: string; request_id: string } } };
    }, orgId);
    expect(forced.status).toBe(403);
    expect(forced.body.error).toMatchObject({ type: 'permission', message: expect.stringContaining('your role is member'), request_id: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(violations).toEqual([]);
  });
});

/** The usage page's own chunk (uPlot), loaded after the first page, with its gzip size. */
function usageChunks(dir: string): Array<{ file: string; bytes: number; gzipBytes: number }> {
  const assets = join(dir, 'assets');
  return readdirSync(assets)
    .filter((file) => file.startsWith('uplot-') && file.endsWith('.js'))
    .map((file) => {
      const path = join(assets, file);
      return { file, bytes: statSync(path).size, gzipBytes: gzipSync(readFileSync(path)).length };
    });
}

