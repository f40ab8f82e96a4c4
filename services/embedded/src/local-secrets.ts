import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

/**
 * The embedded mode's own secrets (token signing, provider-key encryption),
 * generated at first start and kept in the data folder (mode 0600) so that
 * sessions and stored BYOK keys survive a restart. A deployment sets them
 * through its environment instead.
 */
const localSecretsSchema = z.object({
  accessTokenSecret: z.string().min(32),
  secretsKey: z.string().regex(/^[0-9a-f]{64}$/),
});
export type LocalSecrets = z.infer<typeof localSecretsSchema>;

export function loadOrCreateLocalSecrets(dataDir: string): LocalSecrets {
  const path = join(dataDir, 'secrets.json');
  if (existsSync(path)) return localSecretsSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
  const secrets: LocalSecrets = {
    accessTokenSecret: randomBytes(32).toString('hex'),
    secretsKey: randomBytes(32).toString('hex'),
  };
  writeFileSync(path, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}
