// Package ar reads Unix ar archives, the static libraries (.a) of C and
// C++ toolchains, as containers for rea's artifact graph: each member (an
// ELF, COFF or Mach-O relocatable object, usually) is an entry that
// inventory lists and hashes and that rea can extract and analyse. The
// member headers are walked by adapters/internal/arfile, which
// adapters/native shares for its signature libraries.
//
// [Opener] is the ports.ContainerOpener. It recognises an archive by its
// magic, "!<arch>\n", never by name; the format is "ar". Both variants are
// read: System V/GNU (the symbol index "/" or "/SYM64/", the long-name
// table "//", long names "/N") and BSD (names "#1/N" leading the member's
// data, the "__.SYMDEF" index). The symbol index and the long-name table
// are the archive's bookkeeping, not members, and are not entries. A thin
// archive ("!<thin>\n") stores only the paths of its members, which are
// separate files: it is recognised, and OpenContainer fails with a
// *ports.ContainerError of reason unavailable that says so.
//
// Members are read in place: OpenContainer records each member's data
// offset and length (ContainerEntry.Offset and Length; a BSD member's data
// starts after its name) and Open reads that range of the archive. ar does
// not compress, so CompressedSize is -1. A member is executable when its
// header's mode has an execute bit. ar has no directories or links.
//
// Duplicate names. Two members may share a name (ar q appends without
// replacing, and a library built from several directories holds two
// foo.o); ar itself tells them apart by position ("ar xN 2 lib.a foo.o"
// extracts the second). Leaving every copy out, as ports.EntryRejecter
// lets a container do, would hide the very objects a reverse engineer
// opened the library for, so the first copy keeps its name and the k-th
// is listed as "foo.o~k", the name and the count ar xN takes. ar names
// never carry a count this way, but a member could be declared as
// "foo.o~2": then that member keeps the name and the copy it would clash
// with is left out with reason "duplicate" (as is a copy whose name with
// its count exceeds MaxPathBytes). Unsafe names (absolute, "..", NUL,
// backslash, invalid UTF-8, empty components; BSD names may hold any byte)
// and members whose names others use as a directory are left out as
// ports.EntryRejecter describes.
//
// Every limit in ports.ContainerLimits is checked before the work it
// bounds and fails with a *ports.ContainerError of reason limit naming the
// field; the GNU long-name table is bounded to 16 MiB (a larger one fails
// with reason format), a BSD name to MaxPathBytes. Malformed input (a
// header cut short or without its terminator, a size that is not a decimal
// number or runs past the end of the file, a "/N" name outside the table)
// fails with reason format and the byte offset of the fault. The index is
// charged with ports.Reserve while the container is open.
//
// ar is an engine adapter: it imports the standard library, rea/ports and
// rea/adapters/internal/arfile, never rea/core or another adapter.
package ar
