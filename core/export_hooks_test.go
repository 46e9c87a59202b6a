package core

// SetExportHook runs f after every 1000 records an export writes, until the
// returned function restores the previous hook (tests only).
func SetExportHook(f func(records int)) (restore func()) {
	old := exportHook
	exportHook = f
	return func() { exportHook = old }
}
