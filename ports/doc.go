// Package ports declares the interfaces that analysis engines implement and the
// raw observation types they exchange with core.
//
// Engines (adapters/native, adapters/ghidra, ...) return raw observations only:
// they never mint Evidence IDs, apply policy or hash results. core turns
// observations into Evidence.
//
// ports imports only the standard library.
package ports
