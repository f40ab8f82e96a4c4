import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeEdge, type RunningFakeEdge } from '../../test/support/fake-auth';
import { call, expectError } from '../../test/support/http';
import { CONSOLE_CSP } from './static';

/** How edge serves a built Console: the page for every route, hashed assets for good, the policy on all of it. */
describe('the Console’s static files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'console-dist-'));
  const page = '<!doctype html><title>Console</title><script type="module" src="/console/assets/index-abc123.js"></script>';
  let edge: RunningFakeEdge;

  beforeAll(async () => {
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), page);
    writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log("console")');
    writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    edge = await startFakeEdge({}, { settings: { consoleDir: dir } });
  });
  afterAll(async () => {
    await edge.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const get = (path: string) => fetch(`${edge.url}${path}`, { redirect: 'manual' });

  it('forbids inline script and style, framing and foreign sources', () => {
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).toContain("style-src 'self'");
    expect(CONSOLE_CSP).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
    expect(CONSOLE_CSP).toContain("frame-ancestors 'none'");
  });

  it.each(['/console/', '/console/orgs/1f0b4c3e-8d2a-4e6b-9c1d-2a3b4c5d6e7f/usage', '/console/sign-in'])('answers %s with the app’s page and the policy', async (path) => {
    const response = await get(path);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(await response.text()).toBe(page);
  });

  it('redirects /console to /console/', async () => {
    const response = await get('/console');
    expect(response.status).toBe(308);
    expect(response.headers.get('location')).toBe('/console/');
  });

  it('serves hashed assets to be kept for good, and other files of the build', async () => {
    const asset = await get('/console/assets/index-abc123.js');
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    const icon = await get('/console/favicon.svg');
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
  });

  it('answers a missing asset with 404 not_found, never the page', async () => {
    expectError(await call(edge.url, '/console/assets/index-gone.js'), 404, 'not_found');
  });

  it('says how to build a Console that is missing', async () => {
    const bare = await startFakeEdge({}, { settings: { consoleDir: join(dir, 'not-built') } });
    try {
      expect(expectError(await call(bare.url, '/console/'), 503, 'internal').message).toMatch(/npm run build/);
    } finally {
      await bare.stop();
    }
  });
});
