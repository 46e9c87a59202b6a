package artifact

// SetExtractHook makes extract_artifact call f with its output directory
// right after creating it; the returned function restores the previous hook.
func SetExtractHook(f func(outputRoot string)) func() {
	prev := extractHook
	extractHook = f
	return func() { extractHook = prev }
}
