// Package zip reads ZIP archives and the formats built on ZIP (APK, IPA, JAR,
// MSIX, APPX) as containers for rea's artifact graph, over the standard
// library's archive/zip.
//
// A [Reader] checks every name before any byte is read: "..", absolute
// ("/x", "C:x"), backslash, NUL, empty components, invalid UTF-8, duplicates
// and a file used as a directory are [*NameError]s. ZIP bombs are bounded by
// [Options]: the number of entries, each entry's bytes, the total bytes and
// the compression ratio. The limits are checked against the central directory
// when the archive is opened and again while bytes are decompressed, so a
// header that lies about sizes cannot make a reader yield more than the limits
// allow ([*LimitError]). Errors reach core as a [ports.ContainerError] with the
// reason (path, limit, format, unavailable) and wrap the typed error.
//
// [Opener] is the ports.ContainerOpener. Encrypted entries are listed with
// Encrypted set and cannot be opened.
//
// zip is an engine adapter: it imports only the standard library and
// rea/ports, never rea/core or another adapter.
package zip
