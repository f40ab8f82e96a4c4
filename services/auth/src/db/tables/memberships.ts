import type { ColumnType, Selectable } from 'kysely';

export const roles = ['owner', 'admin', 'member'] as const;
export type MembershipRole = (typeof roles)[number];

export interface MembershipsTable {
  organization_id: string;
  user_id: string;
  role: MembershipRole;
  created_at: ColumnType<Date, never, never>;
}
export type Membership = Selectable<MembershipsTable>;
