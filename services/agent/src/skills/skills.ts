import type { Kysely } from 'kysely';
import { decryptSecret, encryptSecret } from '@gateway/lib/cipher';
import { DomainError } from '@gateway/lib/errors';
import type { Logger } from '@gateway/lib/logging';
import type { Skill } from '@gateway/proto/gen/gateway/agent/v1/agent';
import type { AgentDatabase } from '../db/schema';
import type { SkillRow } from '../db/tables/skills';
import { writeLog } from '../logs/logs';
import { findSkill, SKILLS, skillNames, type SkillDefinition } from './catalog';

/** A credential value: long enough for a real token, short enough to be one. */
export const CREDENTIAL_VALUE_MAX = 512;
/** Shorter values show no characters at all: four of a short value are too much of it. */
const LAST_FOUR_MIN_LENGTH = 12;

/** The known skill, or a 400 listing the skills there are. */
export function requireSkill(name: string): SkillDefinition {
  const skill = findSkill(name);
  if (!skill) {
    throw new DomainError('validation', `skill: unknown skill "${name}"; the skills are ${skillNames().join(', ')}`, { field: 'skill' });
  }
  return skill;
}

/** Credentials are bound to their agent record and skill: a ciphertext copied elsewhere does not decrypt. */
const associatedData = (agentId: string, skill: string) => `${agentId}:${skill}`;

/** Exactly the skill's fields, each a non-empty string; a 400 says what is expected, never what was sent. */
export function checkCredentials(skill: SkillDefinition, config: Record<string, string>): Record<string, string> {
  const given = Object.keys(config);
  const missing = skill.credentialFields.filter((field) => !given.includes(field));
  const unexpected = given.filter((field) => !skill.credentialFields.includes(field));
  const problems = [
    ...(missing.length > 0 ? [`missing ${missing.join(', ')}`] : []),
    ...(unexpected.length > 0 ? [`unexpected ${unexpected.join(', ')}`] : []),
  ];
  if (problems.length > 0) {
    throw new DomainError('validation', `config: ${skill.name} takes exactly ${skill.credentialFields.join(', ')}; ${problems.join('; ')}`, {
      field: 'config',
    });
  }
  for (const field of skill.credentialFields) {
    const value = config[field]?.trim() ?? '';
    if (value === '' || value.length > CREDENTIAL_VALUE_MAX) {
      throw new DomainError('validation', `config.${field}: must be 1 to ${CREDENTIAL_VALUE_MAX} characters`, { field: `config.${field}` });
    }
  }
  return Object.fromEntries(skill.credentialFields.map((field) => [field, (config[field] ?? '').trim()]));
}

/**
 * A skill as a read shows it: whether each credential is set and at most
 * its last four characters. A stored value that does not decrypt (the key
 * was changed) shows as not set, so the user sets it again.
 */
function describeSkill(definition: SkillDefinition, row: SkillRow | undefined, key: Buffer, logger: Logger): Skill {
  let values: Record<string, string> = {};
  if (row?.credentials_ciphertext) {
    try {
      values = JSON.parse(decryptSecret(row.credentials_ciphertext, key, associatedData(row.agent_id, definition.name))) as Record<string, string>;
    } catch {
      logger.warn({ skill: definition.name, agent_id: row.agent_id }, 'stored skill credentials do not decrypt with SKILL_CREDENTIALS_KEY');
    }
  }
  const credentials = definition.credentialFields.map((name) => {
    const value = values[name] ?? '';
    return { name, set: value !== '', lastFour: value.length >= LAST_FOUR_MIN_LENGTH ? value.slice(-4) : '' };
  });
  return {
    name: definition.name,
    description: definition.description,
    enabled: row?.enabled ?? false,
    credentials,
    configured: credentials.every((credential) => credential.set),
    updatedAt: row?.updated_at,
  };
}

export interface SkillContext {
  db: Kysely<AgentDatabase>;
  key: Buffer;
  logger: Logger;
}

/** Every known skill with this agent record's state of it, in the catalog's order. */
export async function listSkills({ db, key, logger }: SkillContext, agentId: string): Promise<Skill[]> {
  const rows = await db.selectFrom('skills').selectAll().where('agent_id', '=', agentId).execute();
  return SKILLS.map((definition) => describeSkill(definition, rows.find((row) => row.skill === definition.name), key, logger));
}

async function skillOf(context: SkillContext, agentId: string, definition: SkillDefinition): Promise<Skill> {
  const row = await context.db.selectFrom('skills').selectAll().where('agent_id', '=', agentId).where('skill', '=', definition.name).executeTakeFirst();
  return describeSkill(definition, row, context.key, context.logger);
}

export async function setSkillEnabled(context: SkillContext, agentId: string, name: string, enabled: boolean): Promise<Skill> {
  const definition = requireSkill(name);
  await context.db
    .insertInto('skills')
    .values({ agent_id: agentId, skill: definition.name, enabled })
    .onConflict((conflict) => conflict.columns(['agent_id', 'skill']).doUpdateSet({ enabled, updated_at: new Date() }))
    .execute();
  await writeLog(context.db, agentId, enabled ? 'skill_enabled' : 'skill_disabled', { skill: definition.name });
  return skillOf(context, agentId, definition);
}

/** Replaces the skill's credentials, encrypted; the log names the fields set, never a value. */
export async function setSkillCredentials(context: SkillContext, agentId: string, name: string, config: Record<string, string>): Promise<Skill> {
  const definition = requireSkill(name);
  const credentials = checkCredentials(definition, config);
  const ciphertext = encryptSecret(JSON.stringify(credentials), context.key, associatedData(agentId, definition.name));
  await context.db
    .insertInto('skills')
    .values({ agent_id: agentId, skill: definition.name, credentials_ciphertext: ciphertext })
    .onConflict((conflict) => conflict.columns(['agent_id', 'skill']).doUpdateSet({ credentials_ciphertext: ciphertext, updated_at: new Date() }))
    .execute();
  await writeLog(context.db, agentId, 'skill_credentials_set', { skill: definition.name, fields: definition.credentialFields });
  return skillOf(context, agentId, definition);
}
