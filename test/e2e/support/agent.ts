// First: the admin commands read the catalog's plan names when they load.
import './catalog';
import { randomBytes } from 'node:crypto';
import { addMember, createAgent, createKey, createOrganization, createUser } from '@gateway/auth/admin';
import { call, type CallOptions, type JsonResponse } from '../../../services/edge/test/support/http';
import type { E2e } from './harness';

/** A member of a new organization who owns an agent record and is signed in. */
export interface AgentUser {
  organizationId: string;
  userId: string;
  email: string;
  agentId: string;
  /** The access token (JWT), as a bearer and as the session cookie. */
  accessToken: string;
  cookie: string;
  /** An organization API key: refused on the agent API. */
  apiKey: string;
}

export interface AgentUserOptions {
  plan?: string;
  agent?: { model?: string; plan?: string; messagesLimit?: number } | false;
}

/** Creates the user through the admin commands and signs in through edge, as a person would. */
export async function seedAgentUser(e2e: E2e, options: AgentUserOptions = {}): Promise<AgentUser> {
  const db = e2e.auth.db;
  const suffix = randomBytes(4).toString('hex');
  const organization = await createOrganization(db, { name: `Agent org ${suffix}`, plan: options.plan ?? 'simulated' });
  const email = `agent-owner-${suffix}@example.com`;
  const password = `pw-${randomBytes(12).toString('hex')}`;
  const user = await createUser(db, { email, password });
  await addMember(db, { org: organization.id, email, role: 'owner' });
  const agent =
    options.agent === false
      ? undefined
      : await createAgent(db, {
          org: organization.id,
          ownerEmail: email,
          ...(options.agent?.model ? { model: options.agent.model } : {}),
          ...(options.agent?.plan ? { plan: options.agent.plan } : {}),
          ...(options.agent?.messagesLimit !== undefined ? { messagesLimit: options.agent.messagesLimit } : {}),
        });
  const { key } = await createKey(db, 'test', { org: organization.id, actorEmail: email, name: 'agent suite' });
  const signIn = await call<{ access_token: string }>(e2e.stack.baseUrl, '/api/auth/v1/token?grant_type=password', {
    method: 'POST',
    body: { email, password },
  });
  if (signIn.status !== 200) throw new Error(`sign-in answered ${signIn.status}: ${signIn.text}`);
  const accessToken = signIn.body.access_token;
  return {
    organizationId: organization.id,
    userId: user.id,
    email,
    agentId: agent?.id ?? '',
    accessToken,
    cookie: `service-access-token=${accessToken}`,
    apiKey: key,
  };
}

/** Calls /api/agent/<path> as the user, with the bearer access token unless told otherwise. */
export function agentApi(baseUrl: string, user: AgentUser, credential: 'bearer' | 'cookie' = 'bearer') {
  const as: CallOptions = credential === 'bearer' ? { bearer: user.accessToken } : { cookie: user.cookie };
  const send = <Body>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<JsonResponse<Body>> =>
    call<Body>(baseUrl, `/api/agent${path}`, { method, ...as, ...(body === undefined ? {} : { body }), ...(headers ? { headers } : {}) });
  return {
    get: <Body = Record<string, unknown>>(path: string, headers?: Record<string, string>) => send<Body>('GET', path, undefined, headers),
    post: <Body = Record<string, unknown>>(path: string, body?: unknown, headers?: Record<string, string>) => send<Body>('POST', path, body, headers),
    put: <Body = Record<string, unknown>>(path: string, body?: unknown) => send<Body>('PUT', path, body),
    patch: <Body = Record<string, unknown>>(path: string, body?: unknown) => send<Body>('PATCH', path, body),
    delete: <Body = Record<string, unknown>>(path: string, body?: unknown) => send<Body>('DELETE', path, body),
  };
}

export type AgentApi = ReturnType<typeof agentApi>;
