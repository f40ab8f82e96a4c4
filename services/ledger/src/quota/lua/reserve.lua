-- Reserves a hold on a meter of one organization's period, atomically (holds.lua is loaded ahead).
-- KEYS[1] counters hash, KEYS[2] holds hash (id -> "meter:amount"),
-- KEYS[3] hold expiries sorted set (id scored by expiry, ms)
-- ARGV[1] now (ms), ARGV[2] hold id, ARGV[3] meter, ARGV[4] amount,
-- ARGV[5] limit, ARGV[6] enforce ("1" or "0"), ARGV[7] hold expiry (ms),
-- ARGV[8] expiry of the period's keys (ms)
-- The counters' spend_allowance, when set, replaces ARGV[5] on the spend meter.
-- Returns {"missing"} or {"reserved"|"denied", used, credits, held, spend_allowance or false}: held
-- is what holds in flight on the meter add up to, this one included when it was reserved.
local counters, holds, expiries = KEYS[1], KEYS[2], KEYS[3]
if redis.call('EXISTS', counters) == 0 then return {'missing'} end

sweep_expired(counters, holds, expiries, ARGV[1])

local meter = ARGV[3]
local left, used, credits, held, own_allowance = left_on_meter(counters, meter, tonumber(ARGV[5]))
if redis.call('HEXISTS', holds, ARGV[2]) == 1 then return {'reserved', used, credits, held, own_allowance} end
if not fits(left, tonumber(ARGV[4])) and ARGV[6] == '1' then return {'denied', used, credits, held, own_allowance} end

redis.call('HSET', holds, ARGV[2], meter .. ':' .. ARGV[4])
redis.call('ZADD', expiries, ARGV[7], ARGV[2])
redis.call('HINCRBY', counters, meter .. '_reserved', ARGV[4])
redis.call('PEXPIREAT', holds, ARGV[8])
redis.call('PEXPIREAT', expiries, ARGV[8])
return {'reserved', used, credits, redis.call('HGET', counters, meter .. '_reserved'), own_allowance}
