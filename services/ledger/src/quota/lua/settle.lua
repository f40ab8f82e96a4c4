-- Settles one request and appends its record to the stream, atomically (holds.lua is loaded ahead).
-- KEYS[1] counters hash, KEYS[2] holds hash, KEYS[3] hold expiries, KEYS[4] record stream
-- ARGV[1] hold id ("" when none), ARGV[2] meter, ARGV[3] usage, ARGV[4] limit, ARGV[5] record (JSON),
-- ARGV[6] commit-by instant in epoch ms ("" when none), ARGV[7] lease hold id the usage comes off ("" when none),
-- ARGV[8] now (ms, the ledger's clock, as lease.lua's), ARGV[9] the lease's new expiry (ms)
-- Returns {"late"}, {"missing"} or {"settled", used, credits, credits_used, held, spend_allowance or
-- false, lease renewed (1 or 0)}: held is what the other holds in flight on the meter add up to once
-- this one is released (a lease's hold included, less this call's usage).
local counters, holds, expiries, stream = KEYS[1], KEYS[2], KEYS[3], KEYS[4]

-- The caller has stopped waiting (or is about to): its answer says "not metered", so nothing may
-- change. Checked here, on Redis's clock, because the XADD below is the record's one commit point.
if ARGV[6] ~= '' then
  local now = redis.call('TIME')
  if tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) >= tonumber(ARGV[6]) then return {'late'} end
end
if redis.call('EXISTS', counters) == 0 then return {'missing'} end

-- One read of what the answer and the credits rule need; what changes below is answered from the
-- increments' own replies, so a settlement stays a handful of commands (one runs per request).
local meter, usage = ARGV[2], ARGV[3]
local used, credits_held, held, own_allowance = unpack(redis.call('HMGET', counters, meter .. '_used', 'credits', meter .. '_reserved', 'spend_allowance'))
local credits = tonumber(credits_held or '0')
local credits_used = 0
if meter ~= 'spend' and credits > 0 then
  -- Only the part of this usage beyond the plan's limit is paid with credits.
  local current = tonumber(used or '0')
  local beyond = current + tonumber(usage) - math.max(current, tonumber(ARGV[4]))
  if beyond > 0 then credits_used = math.min(credits, beyond) end
end

-- The append goes first: if it fails, nothing below runs and the counters stay as they were.
redis.call('XADD', stream, '*', 'record', ARGV[5], 'credits_used', credits_used)

-- Releasing or drawing on a hold moves the reserved counter: the answer takes it from there.
if ARGV[1] ~= '' then
  release_hold(counters, holds, expiries, ARGV[1])
  held = redis.call('HGET', counters, meter .. '_reserved')
end
-- A lease's hold pays for the call out of what it holds; past its expiry it is gone and the usage only counts.
local lease_renewed = 0
if ARGV[7] ~= '' then
  if usage ~= '0' then
    local taken, reserved_now = take_from_hold(counters, holds, ARGV[7], meter, tonumber(usage))
    if taken > 0 then held = reserved_now end
  end
  -- The holder is alive and using the lease: it lasts another full term, as after a renewal. Never
  -- one already expired (the sweep of the next Lease gives that back).
  local expiry = redis.call('ZSCORE', expiries, ARGV[7])
  if expiry and tonumber(expiry) > tonumber(ARGV[8]) then
    redis.call('ZADD', expiries, ARGV[9], ARGV[7])
    lease_renewed = 1
  end
end
if usage ~= '0' then used = redis.call('HINCRBY', counters, meter .. '_used', usage) end
local credits_left = credits_held
if credits_used > 0 then credits_left = redis.call('HINCRBY', counters, 'credits', -credits_used) end
return {'settled', used or '0', credits_left, credits_used, held or '0', own_allowance, lease_renewed}
