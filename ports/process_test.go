package ports_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

func TestCleanupError(t *testing.T) {
	is := is.New(t)
	var err error = &ports.CleanupError{Resources: []ports.OwnedResource{
		{Kind: ports.ResourceTemporaryRoot, ID: "/tmp/r", Reason: "busy"},
		{Kind: ports.ResourceProcess, ID: "12", Reason: "still running"},
		{Kind: ports.ResourceProcess, ID: "13", Reason: "still running"},
	}}
	wrapped := fmt.Errorf("close: %w", err)
	is.True(errors.Is(wrapped, ports.ErrCleanupIncomplete))
	is.True(!errors.Is(wrapped, ports.ErrUnavailable))
	var ce *ports.CleanupError
	is.True(errors.As(wrapped, &ce))
	is.Equal(ce.Kinds(), []string{ports.ResourceProcess, ports.ResourceTemporaryRoot})
	is.Equal(err.Error(), "cleanup incomplete: temporary-root /tmp/r: busy; process 12: still running; process 13: still running")
	is.Equal((&ports.CleanupError{}).Kinds(), []string(nil))
}
