package edapp_test

import (
	"fmt"
	"net/url"

	"github.com/edapp-go/edapp"
)

func ExampleRedact() {
	secret := "s3cret-header-value"
	msg := "the service answered: bad header " + url.QueryEscape("X-Hook: "+secret)
	fmt.Println(edapp.Redact(msg, secret))
	// Output: the service answered: bad header X-Hook%3A+[REDACTED]
}
