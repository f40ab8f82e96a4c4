/**
 * Money is integer micro-dollars (1 USD = 1,000,000) as bigint end to end.
 * Strings on the wire (proto int64, headers) never pass through a float.
 */
export type MicroUsd = bigint;

export const MICROS_PER_USD = 1_000_000n;

/** Formats micro-dollars as a decimal USD string with 6 places: 1234n -> "0.001234". */
export function formatUsd(micros: MicroUsd): string {
  const negative = micros < 0n;
  const magnitude = negative ? -micros : micros;
  const whole = magnitude / MICROS_PER_USD;
  const fraction = (magnitude % MICROS_PER_USD).toString().padStart(6, '0');
  return `${negative ? '-' : ''}${whole}.${fraction}`;
}

const USD_PATTERN = /^(-)?(\d+)(?:\.(\d{1,6}))?$/;

/** Parses a decimal USD string with at most 6 places; throws on anything else. */
export function parseUsd(text: string): MicroUsd {
  const match = USD_PATTERN.exec(text.trim());
  if (!match) throw new RangeError(`not a USD amount with at most 6 decimal places: ${JSON.stringify(text)}`);
  const [, sign, whole = '0', fraction = ''] = match;
  const micros = BigInt(whole) * MICROS_PER_USD + BigInt(fraction.padEnd(6, '0'));
  return sign ? -micros : micros;
}

/** Parses an int64 carried as a decimal string (proto, database). */
export function parseMicros(text: string): MicroUsd {
  if (!/^-?\d+$/.test(text)) throw new RangeError(`not an integer micro-dollar amount: ${JSON.stringify(text)}`);
  return BigInt(text);
}
