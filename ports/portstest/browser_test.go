package portstest_test

import (
	"testing"

	"rea/ports/portstest"
)

func TestBrowserFakePassesRunBrowser(t *testing.T) {
	portstest.RunBrowser(t, portstest.NewBrowserFake(), portstest.BrowserEnv{
		Endpoint: "http://127.0.0.1:9222", TargetID: "T1", Origin: "http://app.test",
	})
}
