-- Sets or removes an organization's own spend allowance on a loaded period.
-- KEYS[1] counters hash; ARGV[1] micro-dollars, or "" to fall back to the plan's,
-- ARGV[2] allowance-changes channel, ARGV[3] organization id
-- Returns 1 when the period is loaded, 0 when it is not (its rebuild reads Postgres). Announced
-- either way, so holders of leases on the organization ask anew (WatchLeases).
local counters = KEYS[1]
local loaded = redis.call('EXISTS', counters)
if loaded == 1 then
  if ARGV[1] == '' then
    redis.call('HDEL', counters, 'spend_allowance')
  else
    redis.call('HSET', counters, 'spend_allowance', ARGV[1])
  end
end
redis.call('PUBLISH', ARGV[2], ARGV[3])
return loaded
