import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { addMember, createUser } from '@gateway/auth/admin';
import { AUTH_SCHEMA, type AuthDatabase } from '@gateway/auth/db';
import { connectDatabase, type Database } from '@gateway/lib/db';
import { call, type CallOptions } from './http';

export type Role = 'owner' | 'admin' | 'member';

/** A user who can sign in. */
export interface Account {
  id: string;
  email: string;
  password: string;
}

export function connectAuthDatabase(url: string): Database<AuthDatabase> {
  return connectDatabase<AuthDatabase>({ kind: 'postgres', url, poolSize: 2 }, AUTH_SCHEMA);
}

/** An email no other test (or earlier run sharing the Redis throttle) uses. */
export function uniqueEmail(label: string): string {
  return `${label}-${randomBytes(4).toString('hex')}@example.com`;
}

/** A new user, with the role in the organization when one is given, through the admin commands. */
export async function seedAccount(db: Kysely<AuthDatabase>, label: string, membership?: { org: string; role: Role }): Promise<Account> {
  const email = uniqueEmail(label);
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const user = await createUser(db, { email, password });
  if (membership) await addMember(db, { org: membership.org, email, role: membership.role });
  return { id: user.id, email, password };
}

export interface SignedIn {
  accessToken: string;
  refreshToken: string;
  /** The `name=value` pair of the session cookie, as a browser would send it back. */
  cookie: string;
}

interface TokenBody {
  access_token: string;
  refresh_token: string;
}

/** Signs in through edge, as a client would. */
export async function signIn(baseUrl: string, account: Account, options: Pick<CallOptions, 'headers'> = {}): Promise<SignedIn> {
  const response = await call<TokenBody>(baseUrl, '/api/auth/v1/token?grant_type=password', {
    method: 'POST',
    body: { email: account.email, password: account.password },
    ...options,
  });
  if (response.status !== 200) throw new Error(`sign-in of ${account.email} answered ${response.status}: ${response.text}`);
  const cookie = response.headers.get('set-cookie')?.split(';')[0];
  if (!cookie) throw new Error('sign-in set no cookie');
  return { accessToken: response.body.access_token, refreshToken: response.body.refresh_token, cookie };
}
