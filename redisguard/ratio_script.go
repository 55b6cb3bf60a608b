package redisguard

// ratioScript is a shared ratio budget's one step, atomic on the server
// and timed by the server's clock (TIME). KEYS[1] is the window, a hash of
// windowLua's slots counting q, the first attempts, and r, the retries
// admitted; no key is an empty window.
//
// ARGV: 1 the step ("d" a deposit of first attempts, "a" a retry's
// admission), 2 a slot's width (µs), 3 the reserve (the retries the window
// allows whatever the traffic), 4 the retries allowed per million first
// attempts, 5 the key's TTL (ms), 6 a shift added to the server's time (µs;
// 0 but in tests), 7 the first attempts the instance counted since it last
// sent them, counted first, 8 how long ago the first of them was counted
// (µs, on the instance's clock), whose slot they count in.
//
// An admission is granted while the window's retries are fewer than the
// reserve plus the ratio of its first attempts, rounded down, computed
// exactly (the first attempts split at a million, so that no product
// exceeds 2^53), and counts the retry at once. It returns {admitted,
// first attempts, retries}, those of the window after the step.
var ratioScript = serverTimeLua("6") + windowLua + `
local w = window(KEYS[1], now, tonumber(ARGV[2]), {'q', 'r'})
w.add('q', tonumber(ARGV[7]), now - tonumber(ARGV[8]))
local admitted = 0
if ARGV[1] == 'a' then
  local q, ratio = w.sum.q, tonumber(ARGV[4])
  local hi = math.floor(q / 1000000)
  local allowance = tonumber(ARGV[3]) + hi * ratio + math.floor((q - hi * 1000000) * ratio / 1000000)
  if w.sum.r < allowance then
    w.add('r', 1)
    admitted = 1
  end
end
if w.save() then redis.call('PEXPIRE', KEYS[1], ARGV[5]) end
return {admitted, w.sum.q, w.sum.r}
`
