package core_test

import (
	"context"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

// TestClassifyIsIdentifyWithoutTheDigest: Classify names the same format,
// kind and architecture as Identify, and the same errors, without reading
// the file whole for its SHA-256.
func TestClassifyIsIdentifyWithoutTheDigest(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	id, err := core.Identify(ctx, "/proc/self/exe")
	is.NoErr(err)
	cl, err := core.Classify(ctx, "/proc/self/exe")
	is.NoErr(err)
	is.Equal(len(id.SHA256), 64)
	is.Equal(cl.SHA256, "")
	cl.SHA256 = id.SHA256
	is.Equal(cl, id)
	_, idErr := core.Identify(ctx, t.TempDir())
	_, clErr := core.Classify(ctx, t.TempDir())
	is.True(idErr != nil && clErr != nil)
	is.Equal(core.AsError("open_binary", clErr).Code, core.AsError("open_binary", idErr).Code) // a directory: target_unavailable
}
