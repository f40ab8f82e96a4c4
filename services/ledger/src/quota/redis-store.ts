import type { MeterName } from '@gateway/lib/catalog';
import type { Redis } from '@gateway/lib/redis';
import { requireConnected } from '../redis/availability';
import type { LedgerKeys } from '../redis/keys';
import { luaScript, runScript } from '../redis/scripts';
import { counterExpiryMs } from './key-expiry';
import type { Counters } from './state';
import type { CounterKey, LeaseCommand, LeaseOutcome, PeriodTotals, QuotaStore, ReserveCommand, ReserveOutcome, SettleCommand, SettleOutcome } from './store';

/** The scripts that touch holds share their rules (holds.lua). */
export const scripts = {
  reserve: luaScript('reserve', ['holds']),
  settle: luaScript('settle', ['holds']),
  lease: luaScript('lease', ['holds']),
  counters: luaScript('counters', ['holds']),
  rebuild: luaScript('rebuild'),
  addCredits: luaScript('add-credits'),
  setSpendAllowance: luaScript('set-spend-allowance'),
};

/** Script replies are arrays of strings and integers; anything else is a bug worth failing on. */
function replyArray(reply: unknown, script: string): unknown[] {
  if (!Array.isArray(reply) || typeof reply[0] !== 'string') throw new Error(`unexpected reply from ${script}: ${JSON.stringify(reply)}`);
  return reply;
}

function counter(value: unknown): bigint {
  if (typeof value === 'string' || typeof value === 'number') return BigInt(value);
  if (value === null || value === undefined) return 0n;
  throw new Error(`unexpected counter value: ${JSON.stringify(value)}`);
}

/** Counters are never shown below zero (a release may briefly run ahead of its hold). */
function clampedCounter(value: unknown): bigint {
  const read = counter(value);
  return read < 0n ? 0n : read;
}

function countersFrom(used: unknown, credits: unknown, held: unknown, spendAllowance: unknown): Counters {
  return {
    used: clampedCounter(used),
    credits: clampedCounter(credits),
    held: clampedCounter(held),
    ...(spendAllowance === null || spendAllowance === undefined ? {} : { spendAllowance: counter(spendAllowance) }),
  };
}

/**
 * Counters in one Redis hash per organization and period; holds in a hash
 * with a sorted set of their expiries. Each operation is one Lua script, so
 * concurrent reservations and settlements serialize in Redis.
 */
export class RedisQuotaStore implements QuotaStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: LedgerKeys,
  ) {}

  async reserve({ hold, limit, enforce, nowMs, ...key }: ReserveCommand): Promise<ReserveOutcome> {
    requireConnected(this.redis);
    const reply = replyArray(
      await runScript(
        this.redis,
        scripts.reserve,
        [this.keys.counters(key), this.keys.holds(key), this.keys.holdExpiries(key)],
        [nowMs, hold.id, hold.meter, hold.amount.toString(), limit.toString(), enforce ? '1' : '0', hold.expiresAtMs, counterExpiryMs(key.period)],
      ),
      'reserve',
    );
    const [kind, used, credits, held, spendAllowance] = reply;
    if (kind === 'missing') return { kind };
    if (kind !== 'reserved' && kind !== 'denied') throw new Error(`unexpected reserve outcome ${String(kind)}`);
    return { kind, counters: countersFrom(used, credits, held, spendAllowance) };
  }

  async lease({ holdId, meter, need, want, giveBack, limit, enforce, nowMs, expiresAtMs, shareDivisor, ...key }: LeaseCommand): Promise<LeaseOutcome> {
    requireConnected(this.redis);
    const reply = replyArray(
      await runScript(
        this.redis,
        scripts.lease,
        [this.keys.counters(key), this.keys.holds(key), this.keys.holdExpiries(key)],
        [
          nowMs,
          holdId,
          meter,
          need.toString(),
          want.toString(),
          giveBack.toString(),
          limit.toString(),
          enforce ? '1' : '0',
          expiresAtMs,
          shareDivisor.toString(),
          counterExpiryMs(key.period),
        ],
      ),
      'lease',
    );
    const [kind, granted, leaseHeld, used, credits, held, spendAllowance] = reply;
    if (kind === 'missing') return { kind };
    if (kind !== 'granted' && kind !== 'denied') throw new Error(`unexpected lease outcome ${String(kind)}`);
    return {
      kind,
      granted: counter(granted),
      leaseHeld: leaseHeld === null ? null : counter(leaseHeld),
      counters: countersFrom(used, credits, held, spendAllowance),
    };
  }

  async settle({ holdId, leaseId, nowMs, leaseExpiresAtMs, meter, usage, limit, commitByMs, ...key }: SettleCommand, record: string): Promise<SettleOutcome> {
    requireConnected(this.redis);
    const reply = replyArray(
      await runScript(
        this.redis,
        scripts.settle,
        [this.keys.counters(key), this.keys.holds(key), this.keys.holdExpiries(key), this.keys.stream],
        [holdId ?? '', meter, usage.toString(), limit.toString(), record, commitByMs === null ? '' : String(commitByMs), leaseId ?? '', nowMs, leaseExpiresAtMs],
      ),
      'settle',
    );
    const [kind, used, credits, creditsUsed, held, spendAllowance, leaseRenewed] = reply;
    if (kind === 'missing' || kind === 'late') return { kind };
    return { kind: 'settled', counters: countersFrom(used, credits, held, spendAllowance), creditsUsed: Number(creditsUsed), leaseRenewed: leaseRenewed === 1 };
  }

  async counters(key: CounterKey, meter: MeterName, nowMs: number): Promise<Counters | undefined> {
    requireConnected(this.redis);
    const reply = replyArray(
      await runScript(this.redis, scripts.counters, [this.keys.counters(key), this.keys.holds(key), this.keys.holdExpiries(key)], [nowMs, meter]),
      'counters',
    );
    const [kind, used, credits, held, spendAllowance] = reply;
    if (kind === 'missing') return undefined;
    return countersFrom(used, credits, held, spendAllowance);
  }

  async rebuild(key: CounterKey, { used, credits, spendAllowance }: PeriodTotals): Promise<void> {
    requireConnected(this.redis);
    await runScript(
      this.redis,
      scripts.rebuild,
      [this.keys.counters(key), this.keys.holds(key)],
      [used.spend.toString(), used.requests.toString(), used.legacy.toString(), credits.toString(), counterExpiryMs(key.period), spendAllowance?.toString() ?? ''],
    );
  }

  async setSpendAllowance(key: CounterKey, micros: bigint | null): Promise<boolean> {
    requireConnected(this.redis);
    return (await runScript(this.redis, scripts.setSpendAllowance, [this.keys.counters(key)], [micros?.toString() ?? '', ...this.announcement(key)])) === 1;
  }

  async addCredits(key: CounterKey, amount: bigint): Promise<boolean> {
    requireConnected(this.redis);
    return (await runScript(this.redis, scripts.addCredits, [this.keys.counters(key)], [amount.toString(), ...this.announcement(key)])) === 1;
  }

  async announce(organizationId: string): Promise<void> {
    requireConnected(this.redis);
    await this.redis.publish(this.keys.allowanceChanges, organizationId);
  }

  /** The channel and message that announce a change of the organization's allowance (leases/redis-changes.ts). */
  private announcement({ organizationId }: CounterKey): string[] {
    return [this.keys.allowanceChanges, organizationId];
  }
}
