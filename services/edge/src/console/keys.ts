import type { Express } from 'express';
import {
  createKeyBodySchema,
  keyParamsSchema,
  orgParamsSchema,
  revokeKeyBodySchema,
  updateKeyBodySchema,
  type CreatedKey,
  type KeyJson,
  type KeyList,
} from '../contract';
import type { EdgeDeps } from '../deps';
import { sessionOf } from '../http/locals';
import { parseInput } from '../http/validation';
import { requireSession } from '../identity/session';
import { present, toKeyJson } from '../mappers';

/**
 * Console API for organization API keys (docs/api.md, docs/api.md#api-keys). Who may do
 * what is decided by the auth service from the actor it is given: any member
 * lists; owners and admins create, edit and revoke.
 */
export function registerKeyRoutes(app: Express, { auth, settings }: EdgeDeps): void {
  const session = requireSession(settings.accessTokenSecret);

  app.get('/api/v1/orgs/:org/keys', session, async (req, res) => {
    const { org } = parseInput(orgParamsSchema, req.params, 'path');
    const { active, revoked } = await auth.listApiKeys({ actorUserId: sessionOf(res).userId, organizationId: org });
    res.json({ active: active.map(toKeyJson), revoked: revoked.map(toKeyJson) } satisfies KeyList);
  });

  app.post('/api/v1/orgs/:org/keys', session, async (req, res) => {
    const { org } = parseInput(orgParamsSchema, req.params, 'path');
    const body = parseInput(createKeyBodySchema, req.body, 'body');
    const { apiKey, secret } = await auth.createApiKey({
      actorUserId: sessionOf(res).userId,
      organizationId: org,
      name: body.name,
      scopes: body.scopes === undefined ? undefined : { names: body.scopes },
      agentId: body.agent_id ?? '',
      expiresInDays: body.expires_in_days ?? undefined,
      expiresAt: body.expires_at == null ? undefined : new Date(body.expires_at),
    });
    // The only response that ever carries the secret.
    res.status(201).json({ key: toKeyJson(present(apiKey, 'api_key')), secret } satisfies CreatedKey);
  });

  app.patch('/api/v1/orgs/:org/keys/:id', session, async (req, res) => {
    const { org, id } = parseInput(keyParamsSchema, req.params, 'path');
    const body = parseInput(updateKeyBodySchema, req.body, 'body');
    const { apiKey } = await auth.updateApiKey({
      actorUserId: sessionOf(res).userId,
      organizationId: org,
      apiKeyId: id,
      name: body.name,
      scopes: body.scopes === undefined ? undefined : { names: body.scopes },
    });
    res.json(toKeyJson(present(apiKey, 'api_key')) satisfies KeyJson);
  });

  app.post('/api/v1/orgs/:org/keys/:id/revoke', session, async (req, res) => {
    const { org, id } = parseInput(keyParamsSchema, req.params, 'path');
    parseInput(revokeKeyBodySchema, req.body ?? {}, 'body');
    const { apiKey } = await auth.revokeApiKey({ actorUserId: sessionOf(res).userId, organizationId: org, apiKeyId: id });
    res.json(toKeyJson(present(apiKey, 'api_key')) satisfies KeyJson);
  });
}
