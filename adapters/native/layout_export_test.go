package native

// LayoutAnalysesOpened is how many analyses layouts have opened of their
// own to tell a stripped static program's code (layout_program.go).
func LayoutAnalysesOpened() int64 { return layoutAnalyses.Load() }
