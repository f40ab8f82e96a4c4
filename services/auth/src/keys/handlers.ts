import { z } from 'zod';
import type { CallContext, UnaryHandlers } from '@gateway/lib/grpc';
import type { AuthServiceService } from '@gateway/proto/gen/gateway/auth/v1/auth';
import type { AuthDeps } from '../deps';
import { authenticateCredential } from './authenticate';
import { createApiKey } from './create';
import { MAX_EXPIRY_DAYS, type ExpiryRequest } from './expiry';
import { createLastUsedRecorder } from './last-used';
import { listApiKeys } from './list';
import { toApiKeyMessage } from './records';
import { idSchema, optionalIdSchema, parseRequest } from './request';
import { revokeApiKey } from './revoke';
import { DEFAULT_SCOPES, scopeSetSchema } from './scopes';
import { requireKeyTables } from './tables';
import { updateApiKey } from './update';
import { storableText } from '@gateway/lib/storable-text';

type KeyHandlers = Pick<
  UnaryHandlers<typeof AuthServiceService>,
  'authenticate' | 'createApiKey' | 'updateApiKey' | 'listApiKeys' | 'revokeApiKey'
>;

const actorShape = { actorUserId: idSchema, organizationId: idSchema };
const nameSchema = storableText()
  .trim()
  .min(1, { error: 'is required, 1 to 100 characters' })
  .max(100, { error: 'must be at most 100 characters' });
const scopesSchema = z.object({ names: scopeSetSchema });

const authenticateSchema = z.object({ credential: z.string(), agentId: optionalIdSchema });

const daysMessage = `must be a whole number of days from 1 to ${MAX_EXPIRY_DAYS}`;

const createSchema = z
  .object({
    ...actorShape,
    name: nameSchema,
    scopes: scopesSchema.optional(),
    agentId: optionalIdSchema,
    expiresInDays: z.number().int({ error: daysMessage }).min(1, { error: daysMessage }).max(MAX_EXPIRY_DAYS, { error: daysMessage }).optional(),
    expiresAt: z.date({ error: 'must be a valid timestamp' }).optional(),
  })
  .refine((request) => request.expiresInDays === undefined || request.expiresAt === undefined, {
    error: 'give expires_in_days or expires_at, not both',
    path: ['expiresAt'],
  });

const updateSchema = z
  .object({ ...actorShape, apiKeyId: idSchema, name: nameSchema.optional(), scopes: scopesSchema.optional() })
  .refine((request) => request.name !== undefined || request.scopes !== undefined, {
    error: 'give name or scopes (or both) to change',
  });

const listSchema = z.object(actorShape);
const revokeSchema = z.object({ ...actorShape, apiKeyId: idSchema });

function expiryOf({ expiresInDays, expiresAt }: z.output<typeof createSchema>): ExpiryRequest {
  if (expiresInDays !== undefined) return { inDays: expiresInDays };
  if (expiresAt !== undefined) return { at: expiresAt };
  return null;
}

/** Every key handler answers 503 naming the keys migration when its tables are missing. */
function requiringKeyTables<H extends Record<string, (request: never, context: CallContext) => Promise<unknown>>>(handlers: H): H {
  const guarded = Object.entries(handlers).map(([name, handler]) => [
    name,
    (request: never, context: CallContext) => requireKeyTables(() => handler(request, context)),
  ]);
  return Object.fromEntries(guarded) as H;
}

/** Authenticate and the Console key RPCs: request checks here, the logic in plain functions. */
export function keyHandlers({ db, settings, invalidator, logger }: AuthDeps): KeyHandlers {
  const lastUsed = createLastUsedRecorder(db, logger);
  return requiringKeyTables<KeyHandlers>({
    authenticate: async (request) => {
      const { credential, agentId } = parseRequest(authenticateSchema, request);
      return { principal: await authenticateCredential(db, lastUsed, { credential, agentId }) };
    },

    createApiKey: async (request) => {
      const parsed = parseRequest(createSchema, request);
      const actor = { userId: parsed.actorUserId, organizationId: parsed.organizationId };
      const { record, key } = await createApiKey(db, settings.keyEnvironment, actor, {
        name: parsed.name,
        scopes: parsed.scopes?.names ?? [...DEFAULT_SCOPES],
        agentId: parsed.agentId,
        expiry: expiryOf(parsed),
      });
      return { apiKey: toApiKeyMessage(record, new Date()), secret: key };
    },

    updateApiKey: async (request) => {
      const parsed = parseRequest(updateSchema, request);
      const actor = { userId: parsed.actorUserId, organizationId: parsed.organizationId };
      const record = await updateApiKey(db, actor, parsed.apiKeyId, {
        ...(parsed.name === undefined ? {} : { name: parsed.name }),
        ...(parsed.scopes === undefined ? {} : { scopes: parsed.scopes.names }),
      });
      // New scopes apply from the very next request on every edge replica.
      await invalidator.invalidateOrganization(actor.organizationId);
      return { apiKey: toApiKeyMessage(record, new Date()) };
    },

    listApiKeys: async (request) => {
      const parsed = parseRequest(listSchema, request);
      const listing = await listApiKeys(db, { userId: parsed.actorUserId, organizationId: parsed.organizationId });
      const now = new Date();
      return {
        active: listing.active.map((record) => toApiKeyMessage(record, now)),
        revoked: listing.revoked.map((record) => toApiKeyMessage(record, now)),
      };
    },

    revokeApiKey: async (request) => {
      const parsed = parseRequest(revokeSchema, request);
      const actor = { userId: parsed.actorUserId, organizationId: parsed.organizationId };
      const record = await revokeApiKey(db, actor, parsed.apiKeyId);
      // Access ends with the very next request on every edge replica, before this returns.
      await invalidator.invalidateOrganization(actor.organizationId);
      return { apiKey: toApiKeyMessage(record, new Date()) };
    },
  });
}
