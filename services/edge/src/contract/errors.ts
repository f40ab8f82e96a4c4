import { z } from 'zod';

/** The body of every error response (docs/api.md#errors, docs/api.md). */
export const errorBodySchema = z.object({
  error: z.object({
    message: z.string(),
    type: z.string(),
    code: z.number().int(),
    /** The request id, equal to the `x-service-request-id` header. */
    request_id: z.string(),
  }),
});
export type ErrorBody = z.output<typeof errorBodySchema>;
