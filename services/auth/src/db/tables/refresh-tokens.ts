import type { ColumnType, Generated, Selectable } from 'kysely';

/**
 * Opaque refresh tokens, stored as SHA-256 (hex). Each use rotates the token;
 * presenting an already-rotated token revokes its whole family (theft signal).
 */
export interface RefreshTokensTable {
  id: Generated<string>;
  user_id: string;
  family_id: string;
  token_hash: string;
  expires_at: Date;
  created_at: ColumnType<Date, never, never>;
  rotated_at: ColumnType<Date | null, never, Date>;
  revoked_at: ColumnType<Date | null, never, Date>;
}
export type RefreshToken = Selectable<RefreshTokensTable>;
