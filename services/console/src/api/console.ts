import type {
  CreateKeyBody,
  CreatedKey,
  KeyJson,
  KeyList,
  OrganizationAgents,
  QuotaJson,
  UpdateKeyBody,
  UsageGroupBy,
  UsageJson,
  UsageRange,
} from '@gateway/edge/contract';
import { withSession } from '../session';
import { readJson, send, type Method, type RequestOptions } from './http';

/**
 * The Console API (one function per route), typed by edge's own schemas
 * (services/edge/src/contract), so a change of shape there fails the build here.
 */
const orgPath = (org: string) => `/api/v1/orgs/${encodeURIComponent(org)}`;

function call<T>(method: Method, path: string, options?: RequestOptions): Promise<T> {
  return withSession(async () => readJson<T>(await send(method, path, options)));
}

export const listKeys = (org: string) => call<KeyList>('GET', `${orgPath(org)}/keys`);

export const createKey = (org: string, body: CreateKeyBody) => call<CreatedKey>('POST', `${orgPath(org)}/keys`, { body });

export const updateKey = (org: string, id: string, body: UpdateKeyBody) =>
  call<KeyJson>('PATCH', `${orgPath(org)}/keys/${encodeURIComponent(id)}`, { body });

export const revokeKey = (org: string, id: string) => call<KeyJson>('POST', `${orgPath(org)}/keys/${encodeURIComponent(id)}/revoke`);

export const listAgents = (org: string) => call<OrganizationAgents>('GET', `${orgPath(org)}/agents`);

export const getQuota = (org: string) => call<QuotaJson>('GET', `${orgPath(org)}/quota`);

export const getUsage = (org: string, range: UsageRange, groupBy: UsageGroupBy) =>
  call<UsageJson>('GET', `${orgPath(org)}/usage?range=${range}&group_by=${groupBy}`);
