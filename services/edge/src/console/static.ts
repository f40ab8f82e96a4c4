import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import express, { type Express, type RequestHandler } from 'express';
import { DomainError } from '@gateway/lib/errors';

/** Where the Console's pages are served, and where `npm run build` puts them (services/console/dist). */
export const CONSOLE_BASE_PATH = '/console';
export const DEFAULT_CONSOLE_DIR = join(__dirname, '..', '..', '..', 'console', 'dist');

/**
 * The Console's Content-Security-Policy: scripts, styles and data from this
 * origin only, no inline script or style, no plugins, no framing, and
 * forms that can only post here.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Every Console response: the policy above, and no framing, sniffing or referrer leaks. */
const consoleHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('content-security-policy', CONSOLE_CSP);
  res.setHeader('x-frame-options', 'DENY');
  res.setHeader('referrer-policy', 'same-origin');
  res.setHeader('cross-origin-opener-policy', 'same-origin');
  res.setHeader('cross-origin-resource-policy', 'same-origin');
  next();
};

/** Asset names carry a hash of their content, so a browser may keep them for good. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * Serves the built Console (a single-page app) under /console: hashed
 * assets from `assets/`, other files of the build as they are, and
 * index.html for every other path, so that a deep link (`/console/orgs/…/usage`)
 * loads the app, which routes in the browser. A build that is missing is
 * a 503 saying how to make it, never an empty page.
 */
export function registerConsoleRoutes(app: Express, consoleDir: string = DEFAULT_CONSOLE_DIR): void {
  const indexFile = join(consoleDir, 'index.html');
  // Routing is not strict, so this route also matches `/console/`, which is the page itself.
  app.get(CONSOLE_BASE_PATH, (req, res, next) => (req.path === CONSOLE_BASE_PATH ? res.redirect(308, `${CONSOLE_BASE_PATH}/`) : next()));
  app.use(
    `${CONSOLE_BASE_PATH}/assets`,
    consoleHeaders,
    express.static(join(consoleDir, 'assets'), { index: false, setHeaders: (res) => res.setHeader('cache-control', IMMUTABLE) }),
    (req) => {
      throw new DomainError('not_found', `No Console asset ${req.originalUrl.split('?')[0] ?? ''}.`);
    },
  );
  app.use(CONSOLE_BASE_PATH, consoleHeaders, express.static(consoleDir, { index: false, setHeaders: (res) => res.setHeader('cache-control', 'no-cache') }));
  app.get(`${CONSOLE_BASE_PATH}/{*page}`, async (_req, res) => {
    const page = await readFile(indexFile).catch(() => {
      throw new DomainError('unavailable', 'The Console is not built: run "npm run build" (npm start builds it on first start).', {
        internalReason: `no ${indexFile}`,
      });
    });
    res.setHeader('cache-control', 'no-cache');
    res.type('html').send(page);
  });
}
