-- Loads a period's counters from Postgres totals, unless they are already loaded.
-- KEYS[1] counters hash, KEYS[2] holds hash
-- ARGV[1] spend used, ARGV[2] requests used, ARGV[3] legacy used, ARGV[4] credits,
-- ARGV[5] expiry of the period's keys (ms), ARGV[6] the organization's own spend allowance ("" when none)
-- Returns 1 when it loaded them, 0 when another caller had.
local counters, holds = KEYS[1], KEYS[2]
if redis.call('EXISTS', counters) == 1 then return 0 end

-- Holds still in flight stay held: settling them releases what they reserved.
local reserved = { spend = 0, requests = 0, legacy = 0 }
for _, hold in ipairs(redis.call('HVALS', holds)) do
  local meter, amount = string.match(hold, '^(%a+):(%d+)$')
  if reserved[meter] then reserved[meter] = reserved[meter] + tonumber(amount) end
end

redis.call('HSET', counters,
  'spend_used', ARGV[1], 'requests_used', ARGV[2], 'legacy_used', ARGV[3], 'credits', ARGV[4],
  'spend_reserved', string.format('%.0f', reserved.spend),
  'requests_reserved', string.format('%.0f', reserved.requests),
  'legacy_reserved', string.format('%.0f', reserved.legacy))
if ARGV[6] ~= '' then redis.call('HSET', counters, 'spend_allowance', ARGV[6]) end
redis.call('PEXPIREAT', counters, ARGV[5])
return 1
