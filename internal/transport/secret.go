package transport

import (
	"net/url"
	"strconv"
	"strings"
)

const redacted = "[REDACTED]"

// credentials hold the token. The Client keeps them behind a pointer: fmt
// prints a nested pointer as an address and cannot call methods on
// unexported fields, so no verb applied to a Client, or a copy of one,
// reaches the token.
type credentials struct {
	token, auth string
}

// Redact replaces the API token in s, in the forms it may take when echoed
// back: as it is, JSON-escaped, and URL-encoded.
func (c *Client) Redact(s string) string {
	tok := c.cred.token
	if tok == "" {
		return s
	}
	for _, form := range tokenForms(tok) {
		if strings.Contains(s, form) {
			s = strings.ReplaceAll(s, form, redacted)
		}
	}
	return s
}

func tokenForms(tok string) []string {
	forms := []string{tok}
	if q := strconv.Quote(tok); q[1:len(q)-1] != tok {
		forms = append(forms, q[1:len(q)-1])
	}
	if e := url.QueryEscape(tok); e != tok {
		forms = append(forms, e)
	}
	if e := url.PathEscape(tok); e != tok {
		forms = append(forms, e)
	}
	return forms
}

// clean redacts the token from an error's text, keeping the error
// matchable with errors.Is and errors.As.
func (c *Client) clean(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if red := c.Redact(msg); red != msg {
		// Not wrapped: the original would still hold the token.
		return cleanError(red)
	}
	return err
}

type cleanError string

func (e cleanError) Error() string { return string(e) }
