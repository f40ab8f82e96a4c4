import { z } from 'zod';

const ratesSchema = z
  .string()
  .transform((text) => text.split(',').map(Number))
  .pipe(z.array(z.number().int().positive()).min(1));

/**
 * A `--rates` option: comma-separated whole rates per second, at least one;
 * the fallback when absent. Anything else ends the script with a message
 * saying what is allowed.
 */
export function ratesOption(value: string | undefined, fallback: readonly number[]): number[] {
  if (value === undefined) return [...fallback];
  const parsed = ratesSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  console.error(`--rates: expected whole numbers above 0 separated by commas (e.g. ${fallback.join(',')}), got "${value}"`);
  process.exit(2);
}
