package redisguard

// windowLua is the sliding window of the scripts that count over a period
// of time (a ratio budget's, a breaker's WithFailureRateOver), on the
// server's clock, as package budget and breaker keep one in a process: ten
// slots of a tenth of the window each, and a count is in the window while
// its slot is one of the last ten, the current one included. The slots are
// fields of a hash: e<i> the epoch of slot i (the slot widths from the
// Unix epoch to its start; slot i holds the epochs equal to i modulo 10),
// and <kind><i> its count of each kind of event.
//
// window(key, now, width, kinds) reads the window of the hash key at the
// server's time now (µs), its slots width µs long, counting the kinds (a
// list of names). It returns w: w.sum[kind] the count of the window;
// w.add(kind, n, at) counts n more in the slot of the time at (µs, now if
// nil; events of a slot that has left the window are dropped, and those
// of a time to come counted now); and w.save() writes the slots that
// changed, reporting whether any did.
const windowLua = `
local function window(key, now, width, kinds)
  local e = math.floor(now / width)
  local names = {}
  for i = 0, 9 do
    names[#names + 1] = 'e' .. i
    for _, k in ipairs(kinds) do names[#names + 1] = k .. i end
  end
  local h = redis.call('HMGET', key, unpack(names))
  local w, slots, stride = {sum = {}}, {}, #kinds + 1
  for _, k in ipairs(kinds) do w.sum[k] = 0 end
  for i = 0, 9 do
    local se = tonumber(h[i * stride + 1])
    if se and se > e - 10 and se <= e then
      local slot = {epoch = se}
      for x, k in ipairs(kinds) do
        slot[k] = tonumber(h[i * stride + 1 + x]) or 0
        w.sum[k] = w.sum[k] + slot[k]
      end
      slots[i] = slot
    end
  end
  function w.add(k, n, at)
    if n <= 0 then return end
    local ep = math.min(math.floor((at or now) / width), e)
    if ep <= e - 10 then return end
    local slot = slots[ep % 10]
    if not slot or slot.epoch ~= ep then
      slot = {epoch = ep}
      for _, kind in ipairs(kinds) do slot[kind] = 0 end
      slots[ep % 10] = slot
    end
    slot[k], slot.dirty, w.sum[k] = slot[k] + n, true, w.sum[k] + n
  end
  function w.save()
    local saved = false
    for i, slot in pairs(slots) do
      if slot.dirty then
        local f = {'e' .. i, string.format('%.0f', slot.epoch)}
        for _, k in ipairs(kinds) do
          f[#f + 1] = k .. i
          f[#f + 1] = string.format('%.0f', slot[k])
        end
        redis.call('HSET', key, unpack(f))
        saved = true
      end
    end
    return saved
  end
  return w
end
`

// serverTimeLua sets now, the server's time in µs (TIME) plus a shift,
// the ARGV named by shiftArg: 0 but in this package's tests, which move
// the server's clock so.
func serverTimeLua(shiftArg string) string {
	return `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2]) + tonumber(ARGV[` + shiftArg + `])
`
}
