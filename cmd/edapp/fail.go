package main

import (
	"errors"
	"net"
	"net/url"
	"strings"
	"syscall"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/safetyculture"
)

// cliError reads "<what failed>: <why>". The SDK starts its errors with
// "edapp: ", as a library should; the CLI prints that prefix once, in
// front of the whole line, so the why drops it.
type cliError struct {
	what string
	err  error
}

func (e *cliError) Error() string { return e.what + ": " + reason(e.err) }
func (e *cliError) Unwrap() error { return e.err }

// whatFailed wraps err with what failed; nil stays nil.
func whatFailed(what string, err error) error {
	if err == nil {
		return nil
	}
	return &cliError{what: what, err: err}
}

// reason is err's text without the SDK's "edapp: " prefix, at its start
// or where an SDK error's text follows another's ("create E4: edapp: POST
// ..."): the CLI's own prefix starts the line.
func reason(err error) string {
	return strings.ReplaceAll(strings.TrimPrefix(err.Error(), "edapp: "), ": edapp: ", ": ")
}

// fatal reports whether err means that no later request of the run can
// succeed, so the run stops at once: the service refused the token (401,
// 403), or the base URL could not be reached (refused, no such host, no
// answer) after the retry policy's attempts.
func fatal(err error) bool {
	return err != nil && (tokenRefused(err) || unreachable(err))
}

func tokenRefused(err error) bool {
	return errors.Is(err, edapp.ErrUnauthorized) || errors.Is(err, edapp.ErrForbidden)
}

// unreachable reports whether err is a failure to reach the service at
// all, as opposed to an answer (an *APIError or *DecodeError).
func unreachable(err error) bool {
	var ae *edapp.APIError
	var de *edapp.DecodeError
	if errors.As(err, &ae) || errors.As(err, &de) {
		return false
	}
	var dns *net.DNSError
	var op *net.OpError
	var ne net.Error
	return errors.As(err, &dns) || errors.As(err, &op) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.As(err, &ne) && ne.Timeout()
}

// service is the settings a run's requests go by, which its hints name:
// EdApp's, or SafetyCulture's for --source safetyculture.
type service struct {
	name        string
	tokenEnv    string
	baseURLEnv  string
	defaultBase string
	flag        string // the flag that chose the service; "" for EdApp
}

var (
	edappService         = service{name: "EdApp", tokenEnv: "EDAPP_API_TOKEN", baseURLEnv: "EDAPP_BASE_URL", defaultBase: edapp.DefaultBaseURL}
	safetyCultureService = service{name: "SafetyCulture", tokenEnv: safetyculture.EnvAPIToken, baseURLEnv: safetyculture.EnvBaseURL,
		defaultBase: safetyculture.DefaultBaseURL, flag: "--source safetyculture"}
)

// hint says what to do about a fatal error: which token to check, or which
// host could not be reached, and where each came from, in the settings of
// the service the run talked to.
func hint(err error, svc service, g *globalFlags, env func(string) string) string {
	if svc.name == "" {
		svc = edappService
	}
	with := ""
	if svc.flag != "" {
		with = ", with " + svc.flag
	}
	switch {
	case tokenRefused(err):
		from := "the " + svc.tokenEnv + " environment variable"
		if g.token != "" {
			from = "the --token flag"
		}
		return svc.name + " refused the API token: check the token, which came from " + from + with
	case unreachable(err):
		base, from := g.baseURL, "the --base-url flag"
		if base == "" {
			base, from = env(svc.baseURLEnv), "the "+svc.baseURLEnv+" environment variable"
		}
		if base == "" {
			base, from = svc.defaultBase, "the default"
		}
		host := base
		if u, perr := url.Parse(base); perr == nil && u.Host != "" {
			host = u.Host
		}
		return "could not reach " + host + " (" + svc.name + "'s base URL " + base + " came from " + from + with + ")"
	}
	return ""
}
