/**
 * Money as the API gives it: decimal USD strings with 6 places, which are
 * exact integer micro-dollars. The Console shows these strings as they are
 * (with a dollar sign), so every total on the page is the API's own total,
 * never one recomputed through floating point. Only the chart needs numbers,
 * and then only to place a point: `toMicros` reads the string as an integer.
 */
const USD = /^(-)?(\d+)\.(\d{6})$/;

export function toMicros(usd: string): bigint {
  const match = USD.exec(usd);
  if (!match) throw new Error(`not a USD amount with 6 decimal places: ${JSON.stringify(usd)}`);
  const micros = BigInt(match[2] ?? '0') * 1_000_000n + BigInt(match[3] ?? '0');
  return match[1] ? -micros : micros;
}

/** `$12.345678`, the API's digits untouched, with thousands separated for reading. */
export function displayUsd(usd: string): string {
  const match = USD.exec(usd);
  if (!match) return usd;
  const whole = (match[2] ?? '0').replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${match[1] ?? ''}$${whole}.${match[3] ?? ''}`;
}

/** A chart axis label for a position in micro-dollars: a label, not an amount anyone adds up. */
export function axisUsd(micros: number): string {
  if (micros === 0) return '$0';
  const dollars = micros / 1_000_000;
  return `$${dollars >= 1 ? dollars.toFixed(2) : dollars.toPrecision(2)}`;
}
