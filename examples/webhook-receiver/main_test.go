package main

import "testing"

func TestReceiverAgainstFake(t *testing.T) {
	t.Setenv("EDAPP_API_TOKEN", "")
	if err := run("127.0.0.1:0", "test-secret", false, ""); err != nil {
		t.Fatal(err)
	}
}
