import type { Express } from 'express';
import { z } from 'zod';
import type { EdgeDeps } from '../deps';
import { sessionOf } from '../http/locals';
import { parseInput } from '../http/validation';
import { requireSession } from '../identity/session';
import { present, toKeyJson } from '../mappers';

/**
 * Console API for organization API keys (DESIGN 4, SPEC 2.1). Who may do
 * what is decided by the auth service from the actor it is given: any member
 * lists; owners and admins create, edit and revoke.
 */
const uuid = z.guid();
export const orgParams = z.strictObject({ org: uuid });
const keyParams = z.strictObject({ org: uuid, id: uuid });

const keyName = z.string().trim().min(1);
/** Scope names are checked by the auth service, whose error lists the valid ones. */
const scopeNames = z.array(z.string());
/** The bounds the auth contract states for `expires_in_days`. */
const MAX_EXPIRY_DAYS = 3650;

const createKeyBody = z
  .strictObject({
    name: keyName,
    scopes: scopeNames.optional(),
    agent_id: uuid.nullish(),
    expires_in_days: z.number().int().min(1).max(MAX_EXPIRY_DAYS).nullish(),
    expires_at: z.iso.datetime({ offset: true }).nullish(),
  })
  .refine((body) => body.expires_in_days == null || body.expires_at == null, {
    message: 'cannot be given together with expires_in_days: choose one',
    path: ['expires_at'],
  });

const updateKeyBody = z
  .strictObject({ name: keyName.optional(), scopes: scopeNames.optional() })
  .refine((body) => body.name !== undefined || body.scopes !== undefined, {
    message: 'must change at least one of: name, scopes',
  });

/** Revoking takes no options; an empty object is accepted for clients that always send one. */
const revokeKeyBody = z.strictObject({});

export function registerKeyRoutes(app: Express, { auth, settings }: EdgeDeps): void {
  const session = requireSession(settings.accessTokenSecret);

  app.get('/api/v1/orgs/:org/keys', session, async (req, res) => {
    const { org } = parseInput(orgParams, req.params, 'path');
    const { active, revoked } = await auth.listApiKeys({ actorUserId: sessionOf(res).userId, organizationId: org });
    res.json({ active: active.map(toKeyJson), revoked: revoked.map(toKeyJson) });
  });

  app.post('/api/v1/orgs/:org/keys', session, async (req, res) => {
    const { org } = parseInput(orgParams, req.params, 'path');
    const body = parseInput(createKeyBody, req.body, 'body');
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
    res.status(201).json({ key: toKeyJson(present(apiKey, 'api_key')), secret });
  });

  app.patch('/api/v1/orgs/:org/keys/:id', session, async (req, res) => {
    const { org, id } = parseInput(keyParams, req.params, 'path');
    const body = parseInput(updateKeyBody, req.body, 'body');
    const { apiKey } = await auth.updateApiKey({
      actorUserId: sessionOf(res).userId,
      organizationId: org,
      apiKeyId: id,
      name: body.name,
      scopes: body.scopes === undefined ? undefined : { names: body.scopes },
    });
    res.json(toKeyJson(present(apiKey, 'api_key')));
  });

  app.post('/api/v1/orgs/:org/keys/:id/revoke', session, async (req, res) => {
    const { org, id } = parseInput(keyParams, req.params, 'path');
    parseInput(revokeKeyBody, req.body ?? {}, 'body');
    const { apiKey } = await auth.revokeApiKey({ actorUserId: sessionOf(res).userId, organizationId: org, apiKeyId: id });
    res.json(toKeyJson(present(apiKey, 'api_key')));
  });
}
