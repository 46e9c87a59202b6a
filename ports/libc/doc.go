// Package libc holds what rea knows of the C library's functions without
// reading a C library: their prototypes, which a trace names the arguments
// of (core/process) and a value flow gives a call of an import its arity by
// (adapters/native).
//
// libc imports only the standard library; core's families and the engines
// may import it, as they import ports.
package libc
