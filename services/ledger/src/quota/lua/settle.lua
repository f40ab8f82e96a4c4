-- Settles one request and appends its record to the stream, atomically (holds.lua is loaded ahead).
-- KEYS[1] counters hash, KEYS[2] holds hash, KEYS[3] hold expiries, KEYS[4] record stream
-- ARGV[1] hold id ("" when none), ARGV[2] meter, ARGV[3] usage, ARGV[4] limit, ARGV[5] record (JSON),
-- ARGV[6] commit-by instant in epoch ms ("" when none), ARGV[7] lease hold id the usage comes off ("" when none)
-- Returns {"late"}, {"missing"} or {"settled", used, credits, credits_used, held, spend_allowance or
-- false}: held is what the other holds in flight on the meter add up to once this one is released
-- (a lease's hold included, less this call's usage).
local counters, holds, expiries, stream = KEYS[1], KEYS[2], KEYS[3], KEYS[4]

-- The caller has stopped waiting (or is about to): its answer says "not metered", so nothing may
-- change. Checked here, on Redis's clock, because the XADD below is the record's one commit point.
if ARGV[6] ~= '' then
  local now = redis.call('TIME')
  if tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) >= tonumber(ARGV[6]) then return {'late'} end
end
if redis.call('EXISTS', counters) == 0 then return {'missing'} end

local meter, usage = ARGV[2], ARGV[3]
local used = tonumber(redis.call('HGET', counters, meter .. '_used') or '0')
local credits = tonumber(redis.call('HGET', counters, 'credits') or '0')
local credits_used = 0
if meter ~= 'spend' and credits > 0 then
  -- Only the part of this usage beyond the plan's limit is paid with credits.
  local beyond = used + tonumber(usage) - math.max(used, tonumber(ARGV[4]))
  if beyond > 0 then credits_used = math.min(credits, beyond) end
end

-- The append goes first: if it fails, nothing below runs and the counters stay as they were.
redis.call('XADD', stream, '*', 'record', ARGV[5], 'credits_used', credits_used)

if ARGV[1] ~= '' then release_hold(counters, holds, expiries, ARGV[1]) end
-- A lease's hold pays for the call out of what it holds; past its expiry it is gone and the usage only counts.
if ARGV[7] ~= '' and usage ~= '0' then take_from_hold(counters, holds, ARGV[7], meter, tonumber(usage)) end
if usage ~= '0' then redis.call('HINCRBY', counters, meter .. '_used', usage) end
if credits_used > 0 then redis.call('HINCRBY', counters, 'credits', -credits_used) end
return {
  'settled', redis.call('HGET', counters, meter .. '_used') or '0', redis.call('HGET', counters, 'credits'), credits_used,
  redis.call('HGET', counters, meter .. '_reserved') or '0', redis.call('HGET', counters, 'spend_allowance'),
}
