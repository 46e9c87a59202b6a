package cdp

import (
	"context"

	"rea/ports"
)

// ListElectronTargets lists an Electron application's file-gated page
// targets.
func (e *RuntimeEngine) ListElectronTargets(ctx context.Context, req ports.ElectronListRequest) (*ports.ElectronTargetList, error) {
	return nil, &ports.BrowserError{Code: ports.BrowserEndpointUnreachable, Msg: "not implemented"}
}

// InspectElectronPage captures one file-gated page passively.
func (e *RuntimeEngine) InspectElectronPage(ctx context.Context, req ports.ElectronInspectRequest) (*ports.ElectronPageCapture, error) {
	return nil, &ports.BrowserError{Code: ports.BrowserEndpointUnreachable, Msg: "not implemented"}
}

// RunElectronScenario launches an owned Electron application.
func (e *RuntimeEngine) RunElectronScenario(ctx context.Context, req ports.ElectronScenarioRequest) (*ports.ElectronScenarioCapture, error) {
	return nil, &ports.BrowserError{Code: ports.BrowserEndpointUnreachable, Msg: "not implemented"}
}
