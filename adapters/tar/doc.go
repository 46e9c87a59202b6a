// Package tar reads tar archives (ustar, pax, GNU long names and links,
// pre-POSIX tar), plain or compressed with gzip or zstd, as containers for
// rea's artifact graph: npm package tarballs (npm pack's name-1.2.3.tgz, its
// files under package/), .tar, .tar.gz, .tgz, .tar.zst and .tzst. Headers
// are parsed by the standard library's archive/tar; gzip and zstd are
// decoded by github.com/klauspost/compress.
//
// [Opener] is the ports.ContainerOpener. It recognises an archive by
// content, never by name alone: the "ustar" magic (or a valid header
// checksum) in the first block, read directly or after decompressing the
// head of a gzip or zstd stream; the formats are "tar", "tar.gz" and
// "tar.zst" (the artifact model has no separate field for the compression,
// and ZIP's formats name what the bytes are).
//
// Random access. A plain tar is read in place: each file's data offset is
// recorded while the headers are indexed, and Open reads that range of the
// archive (ContainerEntry.Offset and Length). A compressed tar is a stream
// with no index, and inventory opens every file, so decompressing from the
// start for each Open would be quadratic. OpenContainer instead decompresses
// the archive once and copies each file's bytes to a spool file it owns (a
// temporary file, unlinked as soon as it is created where the system allows,
// otherwise removed by Close); Open reads the file's range of the spool.
// Memory stays bounded by the index, charged with ports.Reserve as
// adapters/zip charges its central directory; the spool is bounded on disk
// by MaxTotalBytes, checked against each header before its bytes are
// copied, and by MaxCompressionRatio, which caps what the whole stream may
// decompress to (ratio times the archive's size) and is checked as bytes are
// decompressed: tar declares no per-entry compressed size, so
// CompressedSize is -1 and the ratio is the archive's. zstd frames asking for
// a window over 8 MiB (zstd --long, --ultra) are refused as malformed rather
// than allocated; the 8 MiB are charged with ports.Reserve while decoding.
//
// Entries. Regular files (executable when any execute bit is set),
// directories and symbolic links (Link, never followed) are listed. A hard
// link is listed as the regular file it is, with its target's size and
// bytes (the port has no link kind for it, and its bytes are the target's);
// one whose target is not a file listed before it is left out with reason
// "hardlink". Device files, FIFOs and other special entries are left out
// with reason "special" and never opened; GNU sparse files with reason
// "sparse". Unsafe names (absolute, "..", NUL, backslash, invalid UTF-8,
// empty or "." components), every copy of a name declared twice (a
// directory twice apart) and files whose names other entries use as a
// directory are left out as ports.EntryRejecter describes, as adapters/zip
// does. Leading "./" components, which "tar -cf x.tar ." writes, are
// dropped, and the "./" entry itself is the archive's root.
//
// Every limit in ports.ContainerLimits is checked before the work it bounds
// and fails with a *ports.ContainerError of reason limit naming the field;
// malformed input fails with reason format. Nothing in an archive's headers
// is trusted: sizes are checked against the archive's length (plain) or the
// bytes actually decompressed (compressed).
//
// tar is an engine adapter: it imports the standard library, rea/ports and
// klauspost/compress, never rea/core or another adapter.
package tar
