import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

/**
 * The embedded mode's own secrets (token signing, provider-key encryption,
 * skill-credential encryption, the agent's platform agent secret),
 * generated at first start and kept in the data folder (mode 0600) so that
 * sessions, stored keys and credentials survive a restart. A deployment
 * sets them through its environment instead. A data folder from before a
 * secret existed gets it added at the next start.
 */
const hexKey = z.string().regex(/^[0-9a-f]{64}$/);
const localSecretsSchema = z.object({
  accessTokenSecret: z.string().min(32),
  secretsKey: hexKey,
  skillCredentialsKey: hexKey.optional(),
  /** Issued into the auth database, so it is added once the database is up (see withAgentPlatformSecret). */
  agentPlatformSecret: z.string().regex(/^pas_[0-9a-f]{48}$/).optional(),
});
type StoredSecrets = z.infer<typeof localSecretsSchema>;
export type LocalSecrets = Required<Omit<StoredSecrets, 'agentPlatformSecret'>> & Pick<StoredSecrets, 'agentPlatformSecret'>;

const secretsPath = (dataDir: string) => join(dataDir, 'secrets.json');
const newKey = () => randomBytes(32).toString('hex');

function save(dataDir: string, secrets: StoredSecrets): void {
  writeFileSync(secretsPath(dataDir), JSON.stringify(secrets, null, 2), { mode: 0o600 });
}

export function loadOrCreateLocalSecrets(dataDir: string): LocalSecrets {
  const path = secretsPath(dataDir);
  const stored: StoredSecrets = existsSync(path)
    ? localSecretsSchema.parse(JSON.parse(readFileSync(path, 'utf8')))
    : { accessTokenSecret: newKey(), secretsKey: newKey() };
  const secrets = { ...stored, skillCredentialsKey: stored.skillCredentialsKey ?? newKey() };
  if (!existsSync(path) || stored.skillCredentialsKey === undefined) save(dataDir, secrets);
  return secrets;
}

/** The agent's platform agent secret: the stored one, or one issued now (through the admin command) and stored. */
export async function withAgentPlatformSecret(dataDir: string, secrets: LocalSecrets, issue: () => Promise<string>): Promise<string> {
  if (secrets.agentPlatformSecret) return secrets.agentPlatformSecret;
  const agentPlatformSecret = await issue();
  save(dataDir, { ...secrets, agentPlatformSecret });
  return agentPlatformSecret;
}
