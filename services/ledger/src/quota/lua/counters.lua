-- Reads one meter's counters once the holds that have lapsed are given back (holds.lua is loaded
-- ahead), so a read never counts as held the slice of a lease nobody renewed (an edge replica that
-- died): without it, an organization with no traffic would show that slice as held until its next
-- reservation or lease.
-- KEYS[1] counters hash, KEYS[2] holds hash, KEYS[3] hold expiries
-- ARGV[1] now (ms), ARGV[2] meter
-- Returns {"missing"} or {"read", used, credits, held, spend_allowance or false}.
local counters, holds, expiries = KEYS[1], KEYS[2], KEYS[3]
if redis.call('EXISTS', counters) == 0 then return {'missing'} end
sweep_expired(counters, holds, expiries, ARGV[1])
local meter = ARGV[2]
local used, credits, held, own_allowance = unpack(redis.call('HMGET', counters, meter .. '_used', 'credits', meter .. '_reserved', 'spend_allowance'))
return {'read', used or '0', credits or '0', held or '0', own_allowance}
