import { existsSync, readdirSync } from 'node:fs';
import { relative } from 'node:path';
import { logDir, REPO_ROOT } from './paths';
import { scanAllLogs } from './secrets-scan';

/**
 * The run-wide guarantee: no credential-shaped string in the logs of any
 * process the run started. Fails the run naming the files, never the matches.
 */
export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __infraStop?: () => Promise<void> }).__infraStop?.();

  const dir = logDir();
  const scanned = existsSync(dir) ? readdirSync(dir).length : 0;
  const where = relative(REPO_ROOT, dir);
  const findings = scanned > 0 ? scanAllLogs() : [];
  console.log(`\nsecret scan: ${scanned} log file(s) scanned in ${where}, ${findings.length} with a credential-shaped string`);
  if (findings.length > 0) {
    const files = findings.map(({ file, found }) => `  ${file}: ${found.length} match(es)`).join('\n');
    throw new Error(`Credential-shaped strings were logged (values withheld):\n${files}`);
  }
}
