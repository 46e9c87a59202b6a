package native

// SetTextChunkBytes sets the code one WriteDisassembly chunk covers and
// returns a function restoring it.
func SetTextChunkBytes(n int) (restore func()) {
	old := textChunkBytes
	textChunkBytes = n
	return func() { textChunkBytes = old }
}
