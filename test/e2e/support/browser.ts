import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium; .ci/run installs it when it is missing. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Without the background-networking flags Chromium keeps calling out to
 * Google's services, which this machine cannot reach. Playwright gives every
 * launch a fresh, temporary profile (its own --user-data-dir).
 */
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`${CHROMIUM_PATH} is missing: install Debian's chromium package (apt-get install -y chromium), as .ci/run does`);
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_FLAGS });
}
