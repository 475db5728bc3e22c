module github.com/edapp-go/edapp

go 1.26.0

require (
	github.com/google/go-querystring v1.2.0
	github.com/hashicorp/go-retryablehttp v0.7.8
	golang.org/x/time v0.16.0
)

require github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
