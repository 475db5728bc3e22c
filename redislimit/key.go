package redislimit

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
)

// keyDomain keys the hash in KeyForToken. It is fixed, so every process
// derives the same key, and it separates these hashes from any other hash of
// the same token: a digest found elsewhere never matches a budget key.
const keyDomain = "github.com/edapp-go/edapp/redislimit KeyForToken v1"

// keyPrefix begins every key that KeyForToken returns.
const keyPrefix = "edapp:budget:"

// KeyForToken returns the key for the budget of an EdApp API token: the same
// in every process and on every machine for the same token, and different
// for different tokens. It is "edapp:budget:" followed by 32 hexadecimal digits of
// HMAC-SHA256 of the token, keyed with a fixed domain-separation string.
//
// The key never reveals the token: the hash cannot be turned back into it,
// and it is safe to show in Redis's key listings, logs and metrics. As with
// any fixed hash, someone who can list the keys could test a guessed token
// against them; EdApp's tokens are long and random, which makes that
// useless, but don't use KeyForToken for short secrets such as passwords.
func KeyForToken(token string) string {
	mac := hmac.New(sha256.New, []byte(keyDomain))
	mac.Write([]byte(token))
	return keyPrefix + hex.EncodeToString(mac.Sum(nil)[:16])
}

// routeDomain keys the hash in KeyForRoute, apart from KeyForToken's.
const routeDomain = "github.com/edapp-go/edapp/redislimit KeyForRoute v1"

// KeyForRoute returns the key for the budget of one endpoint under a
// token, for a service that limits each endpoint on its own (SafetyCulture's
// Training API: route is "METHOD /path/template", as
// edapp.WithRouteLimiter passes it). It is "edapp:budget:" followed by
// 32 hexadecimal digits: the same in every process for the same token and
// route, different for another token or route, and it never reveals the
// token (see KeyForToken).
func KeyForRoute(token, route string) string {
	mac := hmac.New(sha256.New, []byte(routeDomain))
	mac.Write([]byte(token))
	mac.Write([]byte{0})
	mac.Write([]byte(route))
	return keyPrefix + hex.EncodeToString(mac.Sum(nil)[:16])
}
