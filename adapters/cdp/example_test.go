package cdp_test

import (
	"context"
	"fmt"

	"rea/adapters/cdp"
	"rea/adapters/cdp/cdptest"
	"rea/ports"
)

func ExampleEngine_ListTargets() {
	fake := cdptest.New(nil) // a scripted DevTools endpoint on 127.0.0.1
	defer fake.Close()
	list, err := cdp.New(nil).ListTargets(context.Background(), ports.BrowserListRequest{Endpoint: fake.URL})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range list.Targets {
		fmt.Println(t.TargetID, t.Origin, t.URL)
	}
	// Output: T1 http://app.test http://app.test/index.html
}

func ExampleEngine_InspectPage_invalidEndpoint() {
	_, err := cdp.New(nil).InspectPage(context.Background(), ports.BrowserInspectRequest{
		Target: ports.BrowserTargetRef{Endpoint: "http://localhost:9222", TargetID: "T1"},
	})
	be, _ := ports.AsBrowserError(err)
	fmt.Println(be.Code, be.Field)
	// Output: invalid_request cdp_endpoint
}
