-- Sets or removes an organization's own spend allowance on a loaded period.
-- KEYS[1] counters hash; ARGV[1] micro-dollars, or "" to fall back to the plan's
-- Returns 1 when the period is loaded, 0 when it is not (its rebuild reads Postgres).
local counters = KEYS[1]
if redis.call('EXISTS', counters) == 0 then return 0 end
if ARGV[1] == '' then
  redis.call('HDEL', counters, 'spend_allowance')
else
  redis.call('HSET', counters, 'spend_allowance', ARGV[1])
end
return 1
