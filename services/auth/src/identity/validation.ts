import { z } from 'zod';

/** An email address as users and admins type it; stored and compared lower-cased. */
export const emailSchema = z
  .string()
  .trim()
  .min(1, 'is required')
  .max(254, 'must be at most 254 characters')
  .toLowerCase()
  .email('must be an email address such as ada@example.com');
