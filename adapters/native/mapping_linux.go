package native

import "syscall"

// dontNeed drops b's pages from the process (MADV_DONTNEED); the file's
// pages stay in the page cache. Nothing to report on failure: the pages
// then stay resident.
var dontNeed = func(b []byte) { _ = syscall.Madvise(b, syscall.MADV_DONTNEED) }
