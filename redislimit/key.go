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
