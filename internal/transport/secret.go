package transport

import "github.com/edapp-go/edapp/internal/redact"

// credentials hold the token. The Client keeps them behind a pointer: fmt
// prints a nested pointer as an address and cannot call methods on
// unexported fields, so no verb applied to a Client, or a copy of one,
// reaches the token.
type credentials struct {
	token, auth string
	// authHeader is the Authorization header's value, shared by every
	// request (see Client.headers).
	authHeader []string
}

func newCredentials(token string) *credentials {
	auth := "Bearer " + token
	return &credentials{token: token, auth: auth, authHeader: []string{auth}}
}

// Redact replaces the API token in s, plain or encoded, for error texts
// built from bodies and headers.
func (c *Client) Redact(s string) string { return redact.Secret(s, c.cred.token) }

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
