package runtime

import "rea/core"

func opListElectronTargets() *core.Operation     { return nil }
func opInspectElectronPage() *core.Operation     { return nil }
func opCaptureElectronScenario() *core.Operation { return nil }
