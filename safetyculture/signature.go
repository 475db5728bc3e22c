package safetyculture

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// SignatureHeader carries a delivery's signature.
const SignatureHeader = "X-Safetyculture-Signature"

// ErrBadSignature is a delivery whose signature is missing, malformed, or
// not the body's.
var ErrBadSignature = errors.New("safetyculture: bad webhook signature")

// VerifySignature checks that signature, the x-safetyculture-signature
// header, is the hex HMAC-SHA256 of the raw body under secret (from
// Webhooks.Secret). The comparison takes constant time. It returns nil, or
// an error matching ErrBadSignature that holds neither the secret nor the
// signature. The signature carries no timestamp: protecting against a
// replayed delivery is the receiver's job (WebhookEvent.Key helps).
func VerifySignature(body []byte, signature, secret string) error {
	if secret == "" {
		return fmt.Errorf("%w: the secret is empty", ErrBadSignature)
	}
	got, err := hex.DecodeString(strings.TrimSpace(signature))
	if err != nil || len(got) != sha256.Size {
		return fmt.Errorf("%w: not a hex SHA-256 HMAC", ErrBadSignature)
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	if !hmac.Equal(got, mac.Sum(nil)) {
		return fmt.Errorf("%w: it does not match the body", ErrBadSignature)
	}
	return nil
}
