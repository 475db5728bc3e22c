module github.com/edapp-go/edapp/export

go 1.24.0

require (
	github.com/edapp-go/edapp v0.2.0
	github.com/stretchr/testify v1.12.1
)

require (
	github.com/google/go-querystring v1.2.0 // indirect
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/hashicorp/go-retryablehttp v0.7.8 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/time v0.14.0 // indirect
)
