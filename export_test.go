package edapp

// Handles on unexported options for the package's external tests (package
// edapp_test), which drive a client, its limiter and the fake service on
// one fake clock.
var (
	WithTransportClockForTest = withTransportClock
	WithWindowClockForTest    = withClock
)
