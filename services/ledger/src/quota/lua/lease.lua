-- Grants, renews or takes back part of one holder's lease on a meter of one organization's period,
-- atomically (holds.lua is loaded ahead). A lease is a hold like a reservation's, kept across grants,
-- so the admission rule and the expiry sweep cover leases and reservations together.
-- KEYS[1] counters hash, KEYS[2] holds hash, KEYS[3] hold expiries sorted set
-- ARGV[1] now (ms), ARGV[2] the lease's hold id, ARGV[3] meter, ARGV[4] need, ARGV[5] want,
-- ARGV[6] give back, ARGV[7] limit, ARGV[8] enforce ("1" or "0"), ARGV[9] the lease's expiry (ms),
-- ARGV[10] share divisor, ARGV[11] expiry of the period's keys (ms)
-- Amounts are below 2^53 (the Lease schema's bound), so Lua's numbers hold them exactly.
-- The counters' spend_allowance, when set, replaces ARGV[7] on the spend meter.
-- Returns {"missing"} or {"granted"|"denied", granted, the lease's hold or false when it holds nothing,
-- used, credits, held, spend_allowance or false}: held is what every hold on the meter adds up to after.
local counters, holds, expiries = KEYS[1], KEYS[2], KEYS[3]
if redis.call('EXISTS', counters) == 0 then return {'missing'} end

sweep_expired(counters, holds, expiries, ARGV[1])

local id, meter = ARGV[2], ARGV[3]
local need, want, give_back = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
-- Given back first, relative to what the hold has now, so that it commutes with Record's takes.
if give_back > 0 then take_from_hold(counters, holds, id, meter, give_back) end

local left, used_text, credits_text, _, own_allowance = left_on_meter(counters, meter, tonumber(ARGV[7]))

local kind, granted = 'granted', 0
if need > 0 or want > 0 then
  if ARGV[8] == '1' and not fits(left, need) then
    kind = 'denied'
  else
    -- A share of what is left, never less than the waiting call's need: the slices shrink towards
    -- one call near the end, so no holder strands what another could use.
    granted = math.max(need, math.min(need + want, math.floor(left / tonumber(ARGV[10]))))
  end
end

local amount = granted
local hold = redis.call('HGET', holds, id)
if hold then
  local _, held = parse_hold(hold)
  amount = amount + tonumber(held)
end
local lease = false
if amount == 0 then
  release_hold(counters, holds, expiries, id)
else
  lease = string.format('%.0f', amount)
  redis.call('HSET', holds, id, meter .. ':' .. lease)
  -- The holder just asked: it is alive, and its lease lasts another full term.
  redis.call('ZADD', expiries, ARGV[9], id)
  if granted > 0 then redis.call('HINCRBY', counters, meter .. '_reserved', string.format('%.0f', granted)) end
  redis.call('PEXPIREAT', holds, ARGV[11])
  redis.call('PEXPIREAT', expiries, ARGV[11])
end
return {
  kind, string.format('%.0f', granted), lease, used_text, credits_text,
  redis.call('HGET', counters, meter .. '_reserved') or '0', own_allowance,
}
