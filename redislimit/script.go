package redislimit

import "github.com/redis/go-redis/v9"

// admitScript admits one request if the window allows it.
//
// KEYS: the sorted set of all admissions, the sorted set of bulk
// admissions, the pause key, the marker. ARGV: limit, bulk limit, window
// (µs), "1" for the bulk lane, a unique member, and the latest admission
// and latest bulk admission the caller knows of (µs, 0 for none).
//
// Scores are admission times in µs on Redis's clock. An admission at t
// counts while t > now-window; when the window is full the reply says how
// long until the oldest admission that must leave has left. Bulk
// admissions are counted in both sets.
//
// The sorted sets carry a TTL and may be evicted or flushed; the marker, a
// hash without a TTL, records the latest admission of each lane. A lane
// whose latest admission is still in the window while its set is empty has
// lost its state: nothing is admitted in it until a whole window has passed
// since that admission. The caller's own record of the latest admissions
// covers a marker that was lost too (FLUSHALL), and is written back to it.
//
// It replies {admitted (0/1), wait (µs), now (µs), latest admission (µs),
// latest bulk admission (µs)}.
var admitScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local limit = tonumber(ARGV[1])
local blimit = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local bulk = ARGV[4] == '1'
local stale = now - window

-- latest(field, hint): the latest admission of a lane that the marker or
-- the caller knows of. A time after now was read on another clock (a
-- failover, a restore on another host) and is left out.
local function latest(field, hint)
  local m = tonumber(redis.call('HGET', KEYS[4], field) or '0')
  local h = tonumber(hint)
  if m > now then m = 0 end
  if h > now then h = 0 end
  return math.max(m, h)
end
local last = latest('all', ARGV[6])
local lastb = latest('bulk', ARGV[7])

local paused = tonumber(redis.call('GET', KEYS[3]) or '0')
if paused > now then
  return {0, paused - now, now, last, lastb}
end

-- wait_for(key, lmt, lst): how long the lane of sorted set key must wait.
local function wait_for(key, lmt, lst)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', stale)
  local n = redis.call('ZCARD', key)
  if n == 0 and lst > stale then
    return lst + window - now -- lost state
  end
  if n >= lmt then
    local e = redis.call('ZRANGE', key, n - lmt, n - lmt, 'WITHSCORES')
    return tonumber(e[2]) + window - now
  end
  return 0
end
local wait = wait_for(KEYS[1], limit, last)
if bulk then
  wait = math.max(wait, wait_for(KEYS[2], blimit, lastb))
end
if wait > 0 then
  redis.call('HSET', KEYS[4], 'all', last, 'bulk', lastb)
  return {0, wait, now, last, lastb}
end

local ttl = math.ceil(window / 1000)
redis.call('ZADD', KEYS[1], now, ARGV[5])
redis.call('PEXPIRE', KEYS[1], ttl)
last = now
if bulk then
  redis.call('ZADD', KEYS[2], now, ARGV[5])
  redis.call('PEXPIRE', KEYS[2], ttl)
  lastb = now
end
redis.call('HSET', KEYS[4], 'all', last, 'bulk', lastb)
return {1, 0, now, last, lastb}
`)

// pauseScript extends the pause to now+ARGV[1] µs on Redis's clock, unless
// it already lasts longer. KEYS: the pause key. It replies the pause's end.
var pauseScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local d = tonumber(ARGV[1])
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
if now + d > cur then
  redis.call('SET', KEYS[1], now + d, 'PX', math.ceil(d / 1000))
  return now + d
end
return cur
`)
