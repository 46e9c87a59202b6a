package portstest_test

import (
	"testing"

	"rea/ports/portstest"
)

// The fake passes the runtime conformance suite it ships with.
func TestRuntimeFakeConforms(t *testing.T) {
	portstest.RunRuntime(t, portstest.NewRuntimeFake("/srv/app"), portstest.RuntimeEnv{Endpoint: "http://127.0.0.1:9229", TargetID: "N1", Root: "/srv/app"})
}
