package edapptest

//go:generate go run github.com/edapp-go/edapp/internal/wiregen/cmd/wiregen -pkg edapptest wire.shapes wire_gen.go
