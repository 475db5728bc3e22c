// Command wiregen writes a fake's wire types from its shapes file:
//
//	wiregen -pkg sctest wire.shapes wire_gen.go
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/edapp-go/edapp/internal/wiregen"
)

func main() {
	pkg := flag.String("pkg", "", "the package name")
	flag.Parse()
	if err := run(*pkg, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "wiregen:", err)
		os.Exit(1)
	}
}

func run(pkg string, args []string) error {
	if pkg == "" || len(args) != 2 {
		return fmt.Errorf("usage: wiregen -pkg NAME SHAPES OUT")
	}
	shapes, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	src, err := wiregen.Generate(pkg, filepath.Base(args[0]), shapes)
	if err != nil {
		return err
	}
	return os.WriteFile(args[1], src, 0o644)
}
