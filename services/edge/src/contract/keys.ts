import { z } from 'zod';
import { storableText } from '@gateway/lib/storable-text';

/** The Console's key API (docs/api.md, docs/api.md#api-keys). */
const uuid = z.guid();
export const orgParamsSchema = z.strictObject({ org: uuid });
export const keyParamsSchema = z.strictObject({ org: uuid, id: uuid });

export const keyStatusNames = ['active', 'expired', 'revoked'] as const;
export type KeyStatusName = (typeof keyStatusNames)[number];

export const boundToSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('organization') }),
  z.object({ type: z.literal('agent'), agent_id: z.string() }),
]);
export type BoundToJson = z.output<typeof boundToSchema>;

/** A key as the Console shows it: never the secret. Times are ISO-8601 UTC; null when the moment has not happened. */
export const keySchema = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  scopes: z.array(z.string()),
  bound_to: boundToSchema,
  status: z.enum(keyStatusNames),
  expires_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
  created_at: z.string(),
  revoked_at: z.string().nullable(),
});
export type KeyJson = z.output<typeof keySchema>;

export const keyListSchema = z.object({ active: z.array(keySchema), revoked: z.array(keySchema) });
export type KeyList = z.output<typeof keyListSchema>;

const keyName = storableText().trim().min(1);
/** Scope names are checked by the auth service, whose error lists the valid ones. */
const scopeNames = z.array(z.string());
/** The bounds the auth contract states for `expires_in_days`. */
export const MAX_EXPIRY_DAYS = 3650;

export const createKeyBodySchema = z
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
export type CreateKeyBody = z.input<typeof createKeyBodySchema>;

/** 201 to a create: the only response that ever carries the secret. */
export const createdKeySchema = z.object({ key: keySchema, secret: z.string() });
export type CreatedKey = z.output<typeof createdKeySchema>;

export const updateKeyBodySchema = z
  .strictObject({ name: keyName.optional(), scopes: scopeNames.optional() })
  .refine((body) => body.name !== undefined || body.scopes !== undefined, {
    message: 'must change at least one of: name, scopes',
  });
export type UpdateKeyBody = z.input<typeof updateKeyBodySchema>;

/** Revoking takes no options; an empty object is accepted for clients that always send one. */
export const revokeKeyBodySchema = z.strictObject({});
