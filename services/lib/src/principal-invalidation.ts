import { z } from 'zod';

/**
 * The wire format between auth, which changes what a credential grants, and
 * every edge replica, which keeps verified principals for a short while.
 * After a change commits, auth publishes an invalidation naming the
 * organization; each edge that holds a cache drops that organization's
 * entries and acknowledges; auth returns once every subscriber has
 * acknowledged. Redis pub/sub carries both directions.
 */
export interface PrincipalInvalidationChannels {
  /** auth -> edges: an organization's principals changed. */
  invalidations: string;
  /** edges -> auth: one acknowledgement per invalidation and replica. */
  acknowledgements: string;
}

/** Deployments (and test stacks) sharing one Redis keep apart by prefix. */
export function principalInvalidationChannels(prefix: string): PrincipalInvalidationChannels {
  return { invalidations: `${prefix}:principals:invalidate`, acknowledgements: `${prefix}:principals:invalidate-ack` };
}

export const principalInvalidationSchema = z.object({
  /** Unique per invalidation, echoed in every acknowledgement. */
  id: z.string().min(1),
  organizationId: z.string().min(1),
});
export type PrincipalInvalidation = z.infer<typeof principalInvalidationSchema>;

export const invalidationAcknowledgementSchema = z.object({
  id: z.string().min(1),
  /** Which edge replica acknowledged (for logs when one is missing). */
  replica: z.string().min(1),
});
export type InvalidationAcknowledgement = z.infer<typeof invalidationAcknowledgementSchema>;

/** A message of a known shape, or undefined for anything else on the channel. */
export function parseMessage<Schema extends z.ZodType>(schema: Schema, text: string): z.output<Schema> | undefined {
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
