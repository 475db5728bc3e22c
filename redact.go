package edapp

import "github.com/edapp-go/edapp/internal/redact"

// Redact returns s with every occurrence of secret replaced by
// [REDACTED]: as it is, percent-encoded (once or twice) and JSON-escaped.
// A secret shorter than 8 bytes is replaced only where it stands whole, so
// that ordinary words survive. It is for a program that shows an error
// which may quote a value it sent, such as a webhook's header; the
// client's own errors already hide the API token and launch tokens.
func Redact(s, secret string) string { return redact.Secret(s, secret) }
