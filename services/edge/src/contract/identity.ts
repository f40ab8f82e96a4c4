import { z } from 'zod';

/** The identity API's bodies (docs/api.md): sign-in, refresh, sign-out, the signed-in user. */
export const roleNames = ['owner', 'admin', 'member'] as const;
export type RoleName = (typeof roleNames)[number];

export const membershipSchema = z.object({
  organization_id: z.string(),
  organization_name: z.string(),
  role: z.enum(roleNames),
  plan_tier: z.string(),
});
export type MembershipJson = z.output<typeof membershipSchema>;

export const userSchema = z.object({ id: z.string(), email: z.string(), memberships: z.array(membershipSchema) });
export type UserJson = z.output<typeof userSchema>;

export const GRANT_TYPES = ['password', 'refresh_token'] as const;
export const tokenQuerySchema = z.object({ grant_type: z.enum(GRANT_TYPES) });
export const passwordGrantSchema = z.strictObject({ email: z.string().trim().min(1), password: z.string().min(1) });
export type PasswordGrant = z.input<typeof passwordGrantSchema>;
/** The refresh token travels in the body, or (for a browser) in its cookie with no body at all. */
export const refreshGrantSchema = z.strictObject({ refresh_token: z.string().min(1) });
export const logoutBodySchema = z.strictObject({ refresh_token: z.string().min(1).optional() });

/**
 * `X-Service-Token-Delivery: cookie` on a sign-in asks for the tokens in
 * HttpOnly cookies only: the body then carries neither token, so the page
 * that signed in never holds one.
 */
export const TOKEN_DELIVERY_HEADER = 'x-service-token-delivery';

/** GoTrue's token response: the tokens in the body (and the access token in its cookie too). */
export const tokenResponseSchema = z.object({
  access_token: z.string(),
  token_type: z.literal('bearer'),
  expires_in: z.number().int(),
  refresh_token: z.string(),
  user: userSchema,
});
export type TokenResponse = z.output<typeof tokenResponseSchema>;

/** The same answer when the tokens went into cookies: when the access token expires, and who signed in. */
export const cookieSessionResponseSchema = z.object({
  token_delivery: z.literal('cookie'),
  expires_in: z.number().int(),
  user: userSchema,
});
export type CookieSessionResponse = z.output<typeof cookieSessionResponseSchema>;
