// Package diff is rea's native diffing family: compare_functions over two
// analyze_function records and compare_binaries, which matches the
// functions of two binaries (by name, by normalized-instruction hash, then
// by structure) and compares each pair on the same dimensions.
//
// It imports core and ports only: records are read from their Evidence
// (inline or retained), and binaries are opened through the call's provider
// selection and read through the ports interfaces, never through
// rea/core/binary.
package diff
