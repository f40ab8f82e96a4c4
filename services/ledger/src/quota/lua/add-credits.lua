-- Adds purchased credits to a loaded period; an unloaded one reads them from Postgres when rebuilt.
-- KEYS[1] counters hash; ARGV[1] credits to add
-- Returns 1 when added, 0 when the period is not loaded.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HINCRBY', KEYS[1], 'credits', ARGV[1])
return 1
