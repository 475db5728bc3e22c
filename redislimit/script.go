package redislimit

import "github.com/redis/go-redis/v9"

// admitScript admits one request if the window allows it.
//
// KEYS: the sorted set of all admissions, the sorted set of bulk
// admissions, the pause key. ARGV: limit, bulk limit, window (µs),
// "1" for the bulk lane, a unique member.
//
// Scores are admission times in µs on Redis's clock. An admission at t
// counts while t > now-window; when the window is full the reply says how
// long until the oldest admission that must leave has left. Bulk
// admissions are counted in both sets. It replies {admitted (0/1), wait
// (µs), now (µs)}.
var admitScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local limit = tonumber(ARGV[1])
local blimit = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local bulk = ARGV[4] == '1'

local paused = tonumber(redis.call('GET', KEYS[3]) or '0')
if paused > now then
  return {0, paused - now, now}
end

local stale = now - window
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', stale)
local wait = 0
local n = redis.call('ZCARD', KEYS[1])
if n >= limit then
  local e = redis.call('ZRANGE', KEYS[1], n - limit, n - limit, 'WITHSCORES')
  wait = tonumber(e[2]) + window - now
end
if bulk then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', stale)
  local nb = redis.call('ZCARD', KEYS[2])
  if nb >= blimit then
    local e = redis.call('ZRANGE', KEYS[2], nb - blimit, nb - blimit, 'WITHSCORES')
    local w = tonumber(e[2]) + window - now
    if w > wait then wait = w end
  end
end
if wait > 0 then
  return {0, wait, now}
end

local ttl = math.ceil(window / 1000)
redis.call('ZADD', KEYS[1], now, ARGV[5])
redis.call('PEXPIRE', KEYS[1], ttl)
if bulk then
  redis.call('ZADD', KEYS[2], now, ARGV[5])
  redis.call('PEXPIRE', KEYS[2], ttl)
end
return {1, 0, now}
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
