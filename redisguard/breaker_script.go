package redisguard

// breakerScript is a shared breaker's one step, atomic on the server and
// timed by the server's clock (TIME). KEYS[1] is a hash: s the state (0
// closed, 1 open, 2 half-open), g the generation, which every change of
// state increments and which a new key starts at the time in µs, f the
// failures in a row, u when the open state admits a probe or the
// half-open state gives up on its probes (µs), p the probes taken, w the
// probes that succeeded. No key is a closed breaker.
//
// ARGV: 1 the step ("a" an admission, "r" a record), 2 the failures in a
// row that trip it, 3 the open duration (µs), 4 the probes, 5 the probe
// successes that close it, 6 the probe timeout (µs), 7 the key's TTL (ms),
// 8 a shift added to the server's time (µs; 0 but in tests); 9, 10, 11 the
// outcomes this instance owes (their generation, failures, and 1 if a
// success came after them), applied first; 12, 13 the record's generation
// and verdict (0 neutral, 1 success, 2 failure).
//
// The owed outcomes are applied failures first: a success among them
// resets the count only if no failure came after it.
//
// It returns {state, generation, failures, µs until a probe (open),
// admitted, probe, ignored, probes full, the state it found, {states
// entered}}.
const breakerScript = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2]) + tonumber(ARGV[8])
local h = redis.call('HMGET', KEYS[1], 's', 'g', 'f', 'u', 'p', 'w')
local s, g, f, u, p, w = 0, now, 0, 0, 0, 0
if h[1] then
  s, g, f, u, p, w = tonumber(h[1]), tonumber(h[2]), tonumber(h[3]), tonumber(h[4]), tonumber(h[5]), tonumber(h[6])
end
local s0 = s
local threshold, open, probes, wins = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local ptimeout = tonumber(ARGV[6])
local entered = {}
local function move(to)
  s, g, p, w = to, g + 1, 0, 0
  entered[#entered + 1] = to
  if to == 0 then f, u = 0, 0
  elseif to == 1 then u = now + open
  else u = now + ptimeout end
end
local function failed()
  f = f + 1
  if s == 2 or f >= threshold then move(1) end
end
if tonumber(ARGV[9]) == g and s == 0 then
  f = f + tonumber(ARGV[10])
  if f >= threshold then move(1) elseif ARGV[11] == '1' then f = 0 end
end
local admitted, probe, ignored = 0, 0, 0
if ARGV[1] == 'r' then
  if tonumber(ARGV[12]) ~= g or s == 1 then
    ignored = 1
  elseif ARGV[13] == '2' then
    failed()
  elseif ARGV[13] == '1' then
    f = 0
    if s == 2 then
      w = w + 1
      if w >= wins then move(0) end
    end
  elseif s == 2 and p > 0 then
    p = p - 1
  end
else
  if s == 1 and now >= u then move(2) end
  if s == 2 and now >= u then
    g, p, w, u = g + 1, 0, 0, now + ptimeout
  end
  if s == 0 then
    admitted = 1
  elseif s == 2 and p < probes then
    p, admitted, probe = p + 1, 1, 1
  end
end
local function n(x) return string.format('%.0f', x) end
redis.call('HSET', KEYS[1], 's', s, 'g', n(g), 'f', n(f), 'u', n(u), 'p', p, 'w', w)
redis.call('PEXPIRE', KEYS[1], ARGV[7])
local wait, full = 0, 0
if s == 1 then wait = u - now end
if s == 2 and p >= probes then full = 1 end
return {s, g, f, wait, admitted, probe, ignored, full, s0, entered}
`
