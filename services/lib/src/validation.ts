import type { z } from 'zod';
import { DomainError } from './errors';

/** How a field is called where the input came from: `source_address` over gRPC, `--owner-email` on the command line. */
export type FieldNamer = (path: string) => string;

/** camelCase request keys back to the proto field names (`sourceAddress` -> `source_address`). */
export const protoFieldName: FieldNamer = (path) => path.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/**
 * Parses untrusted input; on failure throws a 400 `validation` whose message
 * names every offending field and what it allows, and whose `field` is the first.
 */
export function parseInput<Schema extends z.ZodType>(
  schema: Schema,
  input: unknown,
  nameField: FieldNamer = protoFieldName,
): z.output<Schema> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => ({
    field: issue.path.length > 0 ? nameField(issue.path.map(String).join('.')) : 'request',
    message: issue.message,
  }));
  const message = problems.map(({ field, message: problem }) => `${field}: ${problem}`).join('; ');
  throw new DomainError('validation', message, { field: problems[0]?.field });
}
