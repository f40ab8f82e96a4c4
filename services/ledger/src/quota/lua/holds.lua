-- Shared by the scripts that touch holds, loaded ahead of each of them (redis/scripts.ts).
-- A hold (a reservation's or a lease's) is "<meter>:<amount>" in the holds hash, its expiry (ms) in
-- the expiries sorted set, and its amount is counted in the counters' <meter>_reserved.

local function parse_hold(text)
  return string.match(text, '^(%a+):(%d+)$')
end

-- Removes a hold and gives its amount back.
local function release_hold(counters, holds, expiries, id)
  local hold = redis.call('HGET', holds, id)
  if hold then
    local meter, amount = parse_hold(hold)
    -- Amounts are decimal strings (exact past 2^53); Redis refuses "-0".
    if amount ~= '0' then redis.call('HINCRBY', counters, meter .. '_reserved', '-' .. amount) end
    redis.call('HDEL', holds, id)
  end
  redis.call('ZREM', expiries, id)
end

-- Abandoned holds (and leases nobody renewed) give their amount back, at most 100 a call.
local function sweep_expired(counters, holds, expiries, now)
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', expiries, '-inf', now, 'LIMIT', 0, 100)) do
    release_hold(counters, holds, expiries, id)
  end
end

-- Takes up to `amount` (a number) off a hold on `meter` and off the meter's reserved counter; the
-- hold stays, with its expiry, even at zero. Relative, so takers commute. Returns what it took and,
-- when it took anything, the meter's reserved counter after it.
local function take_from_hold(counters, holds, id, meter, amount)
  local hold = redis.call('HGET', holds, id)
  if not hold then return 0 end
  local held_meter, held = parse_hold(hold)
  if held_meter ~= meter then return 0 end
  local taken = math.min(amount, tonumber(held))
  if taken <= 0 then return 0 end
  redis.call('HSET', holds, id, meter .. ':' .. string.format('%.0f', tonumber(held) - taken))
  return taken, redis.call('HINCRBY', counters, meter .. '_reserved', string.format('%.0f', -taken))
end


-- What is neither spent nor held on a meter (never below 0), with the counters it was read from
-- (used, credits, held as stored, the own spend allowance or false). The organization's own spend
-- allowance, when set, replaces `limit` on the spend meter; on the counting meters each held
-- request ends up as one request of the limit or one credit.
local function left_on_meter(counters, meter, limit)
  local used = redis.call('HGET', counters, meter .. '_used') or '0'
  local credits = redis.call('HGET', counters, 'credits') or '0'
  local held = redis.call('HGET', counters, meter .. '_reserved') or '0'
  local own_allowance = redis.call('HGET', counters, 'spend_allowance')
  local reserved = math.max(0, tonumber(held))
  local left
  if meter == 'spend' then
    if own_allowance then limit = tonumber(own_allowance) end
    left = limit - tonumber(used) - reserved
  else
    left = math.max(0, limit - tonumber(used)) + tonumber(credits) - reserved
  end
  return math.max(0, left), used, credits, held, own_allowance
end

-- The admission rule: nothing fits in nothing (not even an amount of 0), else what fits in what is left.
local function fits(left, amount)
  return left > 0 and amount <= left
end
