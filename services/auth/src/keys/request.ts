import { z } from 'zod';
import { parseInput, protoFieldName, type FieldNamer } from '@gateway/lib/validation';

/** Problems are reported on the request's own field: `scopes`, not `scopes.names`. */
const topLevelField: FieldNamer = (key) => protoFieldName(key.split('.')[0] ?? key);

/** Checks a key RPC request; a problem is a 400 `validation` naming the field and what it allows. */
export function parseRequest<Schema extends z.ZodType>(schema: Schema, request: unknown): z.output<Schema> {
  return parseInput(schema, request, topLevelField);
}

/** A required id (any UUID Postgres accepts). */
export const idSchema = z.guid({ error: 'must be a UUID' });

/** An optional id in a proto3 string field: empty means absent (null). */
export const optionalIdSchema = z
  .string()
  .refine((value) => value === '' || idSchema.safeParse(value).success, { error: 'must be a UUID, or empty' })
  .transform((value) => (value === '' ? null : value));
