// Package demo connects the examples either to the real service, when
// EDAPP_API_TOKEN is set, or to a fake one (edapptest) on loopback.
package demo

import (
	"os"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
)

// Connect returns a client for the real service when EDAPP_API_TOKEN is
// set (EDAPP_BASE_URL overrides the host), and otherwise a client for a new
// fake server, which the caller closes. srv is nil against the real service.
func Connect(opts ...edapp.Option) (client *edapp.Client, srv *edapptest.Server, err error) {
	if os.Getenv(edapp.EnvAPIToken) != "" {
		client, err = edapp.NewClientFromEnv(append([]edapp.Option{edapp.WithUserAgent("edapp-go-example")}, opts...)...)
		return client, nil, err
	}
	if srv, err = edapptest.NewServer(); err != nil {
		return nil, nil, err
	}
	return srv.Client(opts...), srv, nil
}
