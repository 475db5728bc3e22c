package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// Every unit and manifest bounds the process's memory, so that a load the
// process does not bound itself ends in a restart, not in the host's
// trouble.
func TestDeploymentsLimitMemory(t *testing.T) {
	t.Parallel()
	units, _ := filepath.Glob(filepath.Join(systemdDir, "*.service"))
	manifests, _ := filepath.Glob(filepath.Join(kubernetesDir, "*.yaml"))
	if len(units) < 2 || len(manifests) < 2 {
		t.Fatalf("units %v, manifests %v", units, manifests)
	}
	check := func(files []string, re *regexp.Regexp) {
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if !re.Match(b) {
				t.Errorf("%s: no memory limit (%s)", f, re)
			}
		}
	}
	check(units, regexp.MustCompile(`\nMemoryMax=\d+[KMG]\n`))
	check(manifests, regexp.MustCompile(`limits:\n\s+memory: \d+[KMG]i\n`))
}
