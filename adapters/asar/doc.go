// Package asar reads and writes Electron ASAR archives, the format produced by
// npm's @electron/asar.
//
// A [Reader] parses and validates an archive's header once, then serves file
// contents, an [fs.FS] view, and integrity verification (the whole-file SHA-256
// and every block hash declared by @electron/asar). Files marked unpacked are
// read from the companion "<archive>.unpacked" directory, never from outside it.
// Malformed headers give a [*FormatError] with the byte offset and a reason;
// nothing in the header is trusted until checked against the archive's size and
// the limits in [Options].
//
// [Write] produces archives byte-identical to @electron/asar's
// createPackageWithOptions for the same files in the same order, which makes it
// suitable for tests and fixtures.
//
// Layout (all integers little-endian):
//
//	0   uint32 4                  size pickle payload length
//	4   uint32 headerSize         length of the header pickle
//	8   uint32 payload            header pickle payload length
//	12  int32  n                  JSON length
//	16  n bytes of JSON, zero-padded to a multiple of 4
//	8+headerSize                  file data; a file's "offset" counts from here
//
// [Opener] presents archives to core's artifact graph as a ports.Container,
// reading unpacked files through the request's Companion.
//
// asar is an engine adapter: it imports only the standard library and
// rea/ports, never rea/core or another adapter.
package asar
