package safetyculture

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const testSecret = "whsec-test-5d1e"

func sign(body, secret string) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(body))
	return hex.EncodeToString(mac.Sum(nil))
}

func TestVerifySignature(t *testing.T) {
	t.Parallel()
	body := []byte(`{"webhook_id":"w1"}`)
	require.NoError(t, VerifySignature(body, sign(string(body), testSecret), testSecret))
	require.NoError(t, VerifySignature(body, strings.ToUpper(sign(string(body), testSecret)), testSecret))
	for name, sig := range map[string]string{
		"other secret": sign(string(body), "other"),
		"other body":   sign(`{"webhook_id":"w2"}`, testSecret),
		"empty":        "",
		"not hex":      "zz",
		"short":        sign(string(body), testSecret)[:10],
	} {
		err := VerifySignature(body, sig, testSecret)
		require.ErrorIs(t, err, ErrBadSignature, name)
		assert.NotContains(t, err.Error(), testSecret)
	}
	assert.ErrorIs(t, VerifySignature(body, sign(string(body), ""), ""), ErrBadSignature)
}
