package redisguard

// tokensScript is a shared token bucket's one step, atomic on the server.
// KEYS[1] holds the count, in thousandths of a token; no key is a full
// bucket. ARGV: 1 the step ("r" a record, "a" a retry's admission), 2 the
// capacity, 3 the refunds the instance owes (added first), 4 the outcome's
// change (a success's ratio, or -1000 for a failure), 5 the key's TTL in
// ms. Each addition is clamped to [0, capacity], as package budget clamps
// each step. An admission, while the count is above half the capacity,
// takes one token at once (the retry is charged before it fails; a
// success or a neutral outcome refunds it). It returns {admitted, tokens
// taken, count}.
const tokensScript = `
local cap = tonumber(ARGV[2])
local c = tonumber(redis.call('GET', KEYS[1]) or cap)
local function add(d)
  c = c + d
  if c > cap then c = cap elseif c < 0 then c = 0 end
end
add(tonumber(ARGV[3]))
add(tonumber(ARGV[4]))
local admitted, taken = 0, 0
if ARGV[1] == 'a' and 2 * c > cap then
  admitted = 1
  taken = math.min(1000, c)
  c = c - taken
end
if c >= cap then
  redis.call('DEL', KEYS[1])
else
  redis.call('SET', KEYS[1], string.format('%.0f', c), 'PX', ARGV[5])
end
return {admitted, taken, c}
`
