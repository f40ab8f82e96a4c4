/** The quota store, record queue, allowance-change implementations and the catalog in force, for whoever wires a ledger (main.ts, the embedded mode). */
export { MemoryQuotaStore } from './quota/memory-store';
export { RedisQuotaStore } from './quota/redis-store';
export type { QuotaStore } from './quota/store';
export { MemoryRecordQueue } from './queue/memory-queue';
export { RedisRecordQueue } from './queue/redis-queue';
export type { RecordQueue } from './queue/queue';
export { DEFAULT_KEY_PREFIX, ledgerKeys, type LedgerKeys } from './redis/keys';
export { firstConnection } from './redis/availability';
export { MemoryAllowanceChanges, type AllowanceChanges } from './leases/changes';
export { redisAllowanceChanges } from './leases/redis-changes';
export { catalogInForce } from './quota/catalog-in-force';
