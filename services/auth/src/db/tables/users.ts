import type { ColumnType, Generated, Selectable } from 'kysely';

export interface UsersTable {
  id: Generated<string>;
  /** Stored lower-cased; unique. */
  email: string;
  /** scrypt, self-describing: `scrypt$N$r$p$salt$hash`. */
  password_hash: string;
  created_at: ColumnType<Date, never, never>;
}
export type User = Selectable<UsersTable>;
