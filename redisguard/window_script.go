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
// list of one-letter names). It returns w: w.sum[kind] the count of the
// window, w.add(kind, n) counts n more in the current slot, and w.save()
// writes the current slot if it changed, reporting whether it did.
const windowLua = `
local function window(key, now, width, kinds)
  local e = math.floor(now / width)
  local cur = e % 10
  local names = {}
  for i = 0, 9 do
    names[#names + 1] = 'e' .. i
    for _, k in ipairs(kinds) do names[#names + 1] = k .. i end
  end
  local h = redis.call('HMGET', key, unpack(names))
  local w = {sum = {}, slot = {}}
  local stride, dirty = #kinds + 1, false
  for _, k in ipairs(kinds) do w.sum[k], w.slot[k] = 0, 0 end
  for i = 0, 9 do
    local se = tonumber(h[i * stride + 1])
    if se and se > e - 10 and se <= e then
      for x, k in ipairs(kinds) do
        local v = tonumber(h[i * stride + 1 + x]) or 0
        w.sum[k] = w.sum[k] + v
        if i == cur then w.slot[k] = v end
      end
    end
  end
  function w.add(k, n)
    if n > 0 then
      w.sum[k], w.slot[k], dirty = w.sum[k] + n, w.slot[k] + n, true
    end
  end
  function w.save()
    if not dirty then return false end
    local f = {'e' .. cur, string.format('%.0f', e)}
    for _, k in ipairs(kinds) do
      f[#f + 1] = k .. cur
      f[#f + 1] = string.format('%.0f', w.slot[k])
    end
    redis.call('HSET', key, unpack(f))
    return true
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
