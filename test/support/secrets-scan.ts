import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CREDENTIAL_PATTERNS } from '@gateway/lib/logging';
import { logDir } from './paths';

/** Every credential-shaped string found in the given text. */
export function findCredentials(text: string): string[] {
  return CREDENTIAL_PATTERNS.flatMap((pattern) => text.match(new RegExp(pattern.source, 'g')) ?? []);
}

/** Scans every log file the run's processes wrote. */
export function scanAllLogs(): Array<{ file: string; found: string[] }> {
  const dir = logDir();
  return readdirSync(dir)
    .map((file) => ({ file, found: findCredentials(readFileSync(join(dir, file), 'utf8')) }))
    .filter(({ found }) => found.length > 0);
}
