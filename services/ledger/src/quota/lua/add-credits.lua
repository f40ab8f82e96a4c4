-- Adds purchased credits to a loaded period; an unloaded one reads them from Postgres when rebuilt.
-- KEYS[1] counters hash; ARGV[1] credits to add, ARGV[2] allowance-changes channel, ARGV[3] organization id
-- Returns 1 when added, 0 when the period is not loaded. Announced either way, so holders of leases on
-- the organization ask anew (WatchLeases).
local loaded = redis.call('EXISTS', KEYS[1])
if loaded == 1 then redis.call('HINCRBY', KEYS[1], 'credits', ARGV[1]) end
redis.call('PUBLISH', ARGV[2], ARGV[3])
return loaded
