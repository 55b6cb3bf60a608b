package redisguard

// breakerScript is a shared breaker's one step, atomic on the server and
// timed by the server's clock (TIME). KEYS[1] is a hash: s the state (0
// closed, 1 open, 2 half-open), g the generation, which every change of
// state increments and which a new key starts at the time in µs, f the
// failures in a row, u when the open state admits a probe or the
// half-open state gives up on its probes (µs), p the probes taken, w the
// probes that succeeded, and for WithFailureRate's window n the calls
// recorded in it, fw and sw its failures and slow calls. No key is a
// closed breaker. KEYS[2] is the closed state's window of a failure-rate
// rule, which every change of state empties: for WithFailureRate a string
// of two rings of one bit per call, the failures' from bit 0 and the slow
// calls' from the next whole byte after them, which the calls fill in
// turn (a batch of owed outcomes in no particular order); for
// WithFailureRateOver a hash of windowLua's slots counting c the
// calls, f the failures and sl the slow calls.
//
// ARGV: 1 the step ("a" an admission, "r" a record), 2 the trip rule (0
// failures in a row, 1 WithFailureRate, 2 WithFailureRateOver), 3 the
// failures in a row that trip it, 4 the open duration (µs), 5 the probes,
// 6 the probe successes that close it, 7 the probe timeout (µs), 8 the
// keys' TTL (ms), 9 a shift added to the server's time (µs; 0 but in
// tests), 10 the failure rate that trips it, 11 the calls the window
// needs first, 12 the window (calls, or a slot's width in µs), 13 the slow
// calls' rate that trips it (0 without the slow-call rule); 14 to 20 the
// outcomes this instance owes, applied first (their generation, failures,
// slow failures among them, successes, slow successes among them, 1 if a
// success came after the last failure, and how long ago the first of them
// was recorded, in µs on the instance's clock, whose slot of
// WithFailureRateOver's window they count in); 21 to 23 the record's
// generation, verdict (0 neutral, 1 success, 2 failure) and 1 if it was
// slow.
//
// Owed outcomes count only in the closed state of their generation: with
// failures in a row, failures first, and a success among them resets the
// count only if no failure came after it; with a failure rate, in the
// window, in no particular order. A failure rate trips the breaker when a
// failure or a slow call counted leaves, among at least the calls the
// window needs, the failures at the rate, or the slow calls at theirs.
//
// It returns {state, generation, failures in a row, µs until a probe
// (open), admitted, probe, ignored, probes full, the state it found,
// {states entered}, the window's calls, failures and slow calls}.
var breakerScript = serverTimeLua("9") + windowLua + `
local h = redis.call('HMGET', KEYS[1], 's', 'g', 'f', 'u', 'p', 'w', 'n', 'fw', 'sw')
local s, g, f, u, p, w, n, fw, sw = 0, now, 0, 0, 0, 0, 0, 0, 0
if h[1] then
  s, g, f, u, p, w = tonumber(h[1]), tonumber(h[2]), tonumber(h[3]), tonumber(h[4]), tonumber(h[5]), tonumber(h[6])
  n, fw, sw = tonumber(h[7]) or 0, tonumber(h[8]) or 0, tonumber(h[9]) or 0
end
local s0 = s
local rule, threshold, open = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local probes, wins, ptimeout = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local rate, mincalls, size, srate = tonumber(ARGV[10]), tonumber(ARGV[11]), tonumber(ARGV[12]), tonumber(ARGV[13])
local entered = {}
local win -- WithFailureRateOver's window, once read
local function move(to)
  s, g, p, w = to, g + 1, 0, 0
  entered[#entered + 1] = to
  if to == 0 then f, u = 0, 0
  elseif to == 1 then u = now + open
  else u = now + ptimeout end
  n, fw, sw, win = 0, 0, 0, nil
  redis.call('DEL', KEYS[2])
end

-- fill sets the bits [from, from + r) of the ring string to v (0 or 1)
-- and returns how many of them were set before.
local function fill(from, r, v)
  local to = from + r
  local old = redis.call('BITCOUNT', KEYS[2], from, to - 1, 'BIT')
  local a = math.min(to, math.ceil(from / 8) * 8)
  local b = math.max(a, math.floor(to / 8) * 8)
  if a > from then redis.call('BITFIELD', KEYS[2], 'SET', 'u' .. (a - from), from, v * (2 ^ (a - from) - 1)) end
  if b > a then redis.call('SETRANGE', KEYS[2], a / 8, string.rep(v == 1 and '\255' or '\0', (b - a) / 8)) end
  if to > b then redis.call('BITFIELD', KEYS[2], 'SET', 'u' .. (to - b), b, v * (2 ^ (to - b) - 1)) end
  return old
end

-- ring counts calls in WithFailureRate's window: runs of {calls, failed,
-- slow}, written in turn. Runs of more calls than the window are cut to it
-- in their proportions (the remainder to the first runs cut), so that the
-- window holds the last calls as they were.
local function ring(runs)
  local total, slowfrom = 0, math.ceil(size / 8) * 8
  for _, run in ipairs(runs) do total = total + run[1] end
  if total > size then
    local left = size
    for _, run in ipairs(runs) do
      local k = math.floor(run[1] * size / total)
      run[4], run[1], left = run[1] > k, k, left - k
    end
    for _, run in ipairs(runs) do
      if left > 0 and run[4] then run[1], left = run[1] + 1, left - 1 end
    end
  end
  for _, run in ipairs(runs) do
    local c = run[1]
    while c > 0 do
      local at = n % size
      local r = math.min(c, size - at)
      fw = fw + run[2] * r - fill(at, r, run[2])
      if srate > 0 then sw = sw + run[3] * r - fill(slowfrom + at, r, run[3]) end
      n, c = n + r, c - r
    end
  end
  redis.call('PEXPIRE', KEYS[2], ARGV[8])
end

-- tally returns the calls, failures and slow calls of the window.
local function tally()
  if rule == 1 then return math.min(n, size), fw, sw end
  if not win then win = window(KEYS[2], now, size, {'c', 'f', 'sl'}) end
  return win.sum.c, win.sum.f, win.sum.sl
end

-- rated counts, in the closed state, calls of a failure-rate rule: ff
-- fast failures, sf slow ones, fo fast successes, so slow ones.
local function rated(ff, sf, fo, so, at)
  local total = ff + sf + fo + so
  if total == 0 then return end
  if rule == 1 then
    ring({{sf, 1, 1}, {ff, 1, 0}, {so, 0, 1}, {fo, 0, 0}})
  else
    tally()
    win.add('c', total, at)
    win.add('f', ff + sf, at)
    win.add('sl', sf + so, at)
    if win.save() then redis.call('PEXPIRE', KEYS[2], ARGV[8]) end
  end
  if ff + sf + so > 0 then
    local calls, fails, slow = tally()
    if calls >= mincalls and calls > 0 and (fails / calls >= rate or srate > 0 and slow / calls >= srate) then move(1) end
  end
end

local ofails, oslowf, oks, oslowk = tonumber(ARGV[15]), tonumber(ARGV[16]), tonumber(ARGV[17]), tonumber(ARGV[18])
if tonumber(ARGV[14]) == g and s == 0 then
  f = f + ofails
  if rule == 0 and f >= threshold then
    move(1)
  else
    if ARGV[19] == '1' then f = 0 end
    if rule ~= 0 then rated(ofails - oslowf, oslowf, oks - oslowk, oslowk, now - tonumber(ARGV[20])) end
  end
end
local admitted, probe, ignored = 0, 0, 0
if ARGV[1] == 'r' then
  local verdict, slow = ARGV[22], ARGV[23] == '1'
  if tonumber(ARGV[21]) ~= g or s == 1 then
    ignored = 1
  elseif s == 2 and verdict ~= '0' then
    if verdict == '2' then f = f + 1 else f = 0 end
    if verdict == '2' or slow then
      move(1)
    else
      w = w + 1
      if w >= wins then move(0) end
    end
  elseif verdict == '2' then
    f = f + 1
    if rule == 0 then
      if f >= threshold then move(1) end
    else
      rated(slow and 0 or 1, slow and 1 or 0, 0, 0)
    end
  elseif verdict == '1' then
    f = 0
    if rule ~= 0 then rated(0, 0, slow and 0 or 1, slow and 1 or 0) end
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
local function num(x) return string.format('%.0f', x) end
redis.call('HSET', KEYS[1], 's', s, 'g', num(g), 'f', num(f), 'u', num(u), 'p', p, 'w', w, 'n', num(n), 'fw', num(fw), 'sw', num(sw))
redis.call('PEXPIRE', KEYS[1], ARGV[8])
local wait, full = 0, 0
if s == 1 then wait = u - now end
if s == 2 and p >= probes then full = 1 end
local calls, fails, slow = 0, 0, 0
if s == 0 and rule ~= 0 then calls, fails, slow = tally() end
return {s, g, f, wait, admitted, probe, ignored, full, s0, entered, calls, fails, slow}
`
