// Package redact hides launch tokens in text that may echo them back, such
// as an error body.
package redact

import (
	"regexp"
	"strings"
)

var launchTokenParam = regexp.MustCompile(`(?i)(token=)[^&"'\s<>]+`)

// LaunchTokens replaces the value of every token= parameter in s.
func LaunchTokens(s string) string {
	if !strings.Contains(strings.ToLower(s), "token=") {
		return s
	}
	return launchTokenParam.ReplaceAllString(s, "${1}REDACTED")
}
