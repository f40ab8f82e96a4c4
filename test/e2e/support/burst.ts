import { ledgerKeys } from '@gateway/ledger/stores';
import type { Redis } from '@gateway/lib/redis';
import { nextPeriodStart } from './headers';
import { testCatalog } from './prices';
import { simulatorDirective } from './simulator';

/** The catalog's most expensive simulated model, by the price of a million tokens in and out. */
export function mostExpensiveSimulatedModel(): string {
  const simulated = [...testCatalog.models.values()].filter((model) => model.provider === 'simulator');
  simulated.sort((a, b) => Number(b.inputMicrosPerMillion + b.outputMicrosPerMillion - (a.inputMicrosPerMillion + a.outputMicrosPerMillion)));
  const [first] = simulated;
  if (!first) throw new Error('the test catalog has no simulated model');
  return first.id;
}

/** About 30,000 tokens of varied prose (o200k_base counts a short English word and its space as one token). */
export function largePrompt(seed: number): string {
  const words = ['ledger', 'allowance', 'gateway', 'request', 'model', 'token', 'price', 'month', 'edge', 'replica', 'quota', 'stream'];
  return Array.from({ length: 30_000 }, (_, index) => words[(index * 7 + seed) % words.length]).join(' ');
}

export interface Answer {
  status: number;
  headers: Headers;
  body: { error?: { type?: string; message?: string } };
}

export async function send(baseUrl: string, key: string, body: unknown): Promise<Answer> {
  const response = await fetch(`${baseUrl}/api/gateway/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Answer['body'] };
}

/** One large call to the most expensive model, answered slowly so that the admitted calls are in flight together. */
export function largeCall(seed: number): unknown {
  return {
    model: mostExpensiveSimulatedModel(),
    messages: [{ role: 'user', content: `${largePrompt(seed)} ${simulatorDirective({ 'latency-ms': 500 })}` }],
  };
}

/** The ledger's Redis keys of an organization's counters this period, and of its holds (reservations and leases) and their expiries. */
export function periodKeys(ledgerKeyPrefix: string, organizationId: string): { counters: string; holds: string; expiries: string } {
  const period = nextPeriodStart();
  period.setUTCMonth(period.getUTCMonth() - 1);
  const key = { organizationId, period: period.toISOString().slice(0, 7) };
  const keys = ledgerKeys(ledgerKeyPrefix);
  return { counters: keys.counters(key), holds: keys.holds(key), expiries: keys.holdExpiries(key) };
}

/** A counter of the period's hash, as a bigint (0 when absent). */
export async function counter(redis: Redis, counters: string, field: string): Promise<bigint> {
  return BigInt((await redis.hget(counters, field)) ?? '0');
}
