package core

import (
	"io/fs"
	"syscall"
	"testing"
)

// I/O causes a caller can act on are typed: permission is access_denied
// (tested here because the suite may run as root, where the file system
// never refuses), an over-long name is invalid_request; other I/O failures
// stay execution_failure.
func TestFileErrorTypesCauses(t *testing.T) {
	cases := []struct {
		err    error
		code   Code
		reason string
	}{
		{&fs.PathError{Op: "open", Path: "/x", Err: syscall.EACCES}, CodeAccessDenied, FileReasonDenied},
		{&fs.PathError{Op: "open", Path: "/x", Err: syscall.EPERM}, CodeAccessDenied, FileReasonDenied},
		{&fs.PathError{Op: "open", Path: "/x", Err: syscall.ENAMETOOLONG}, CodeInvalidRequest, FileReasonPath},
		{&fs.PathError{Op: "write", Path: "/x", Err: syscall.EIO}, CodeExecutionFailure, FileReasonIO},
	}
	for _, c := range cases {
		e := fileError("write", FileReasonIO, "/x", c.err.Error(), c.err)
		if e.Code != c.code || e.Details["reason"] != c.reason || e.Remediation == "" && c.code != CodeExecutionFailure {
			t.Errorf("%v: got %s/%v (remediation %q), want %s/%s", c.err, e.Code, e.Details["reason"], e.Remediation, c.code, c.reason)
		}
	}
}
