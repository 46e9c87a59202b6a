// Package libc holds what rea knows of the C library's functions without
// reading a C library: their prototypes, which a trace names the arguments
// of (core/process) and a value flow gives a call of an import its arity by
// (adapters/native), and what a printf or scanf format's conversions take
// (narrow or wide, by ISO C's or Microsoft's rules) and where each arrives under a C calling convention, which the tracer reads at run
// time (adapters/gdbremote) and value flow from a constant format
// (adapters/native).
//
// libc imports only the standard library; core's families and the engines
// may import it, as they import ports.
package libc
