// Package portstest is the conformance suite that every analysis engine runs
// ([Run]) and a working in-memory engine ([Fake]) for tests of code that
// consumes rea/ports.
//
// portstest imports only the standard library, rea/ports and
// github.com/matryer/is.
package portstest
