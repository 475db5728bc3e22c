package main

import "github.com/edapp-go/edapp/edapptest"

// loadOptions are the fake's options for TestExportLoad.
func loadOptions() []edapptest.Option { return nil }
