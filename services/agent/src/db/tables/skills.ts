import type { ColumnType, Generated, Selectable } from 'kysely';

/** A skill of an agent record: on or off, and its credentials, encrypted. */
export interface SkillsTable {
  id: Generated<string>;
  agent_id: string;
  /** A skill the service knows (src/skills/catalog.ts). */
  skill: string;
  enabled: Generated<boolean>;
  /**
   * The credential fields as one JSON object, AES-256-GCM under
   * SKILL_CREDENTIALS_KEY, bound to `<agent id>:<skill>`; null until set.
   */
  credentials_ciphertext: string | null;
  created_at: ColumnType<Date, never, never>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}
export type SkillRow = Selectable<SkillsTable>;
