package asar_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/asar"
)

func byPath(rs []asar.VerifyResult) map[string]asar.VerifyResult {
	m := map[string]asar.VerifyResult{}
	for _, r := range rs {
		m[r.Path] = r
	}
	return m
}

func TestVerifyFlippedByte(t *testing.T) {
	is := is.New(t)
	b := writeArchive(t, sampleEntries(), nil)
	clean := memReader(t, b, nil)
	e, ok := clean.Lookup("lib/big.bin")
	is.True(ok)
	// Flip one byte in the second 4 MiB block.
	b[e.Offset+(4<<20)+17] ^= 0x40
	r := memReader(t, b, nil)

	results, err := r.VerifyAll(context.Background(), 3)
	is.NoErr(err)
	got := byPath(results)
	res := got["lib/big.bin"]
	is.Equal(res.Status, asar.StatusMismatched)
	is.Equal(res.DeclaredSHA256, e.Integrity.Hash)
	is.True(res.CalculatedSHA256 != res.DeclaredSHA256)
	is.Equal(len(res.FailedBlocks), 1)
	is.Equal(res.FailedBlocks[0].Index, 1)
	is.Equal(res.FailedBlocks[0].Declared, e.Integrity.Blocks[1])
	is.Equal(res.DeclaredBlocks, 3)
	is.Equal(got["lib/index.js"].Status, asar.StatusVerified) // siblings still verify
	is.Equal(got["lib/sub/addon.node"].Status, asar.StatusUnavailable)

	single, err := r.Verify(context.Background(), "lib/big.bin")
	is.NoErr(err)
	is.Equal(single.CalculatedSHA256, res.CalculatedSHA256)
}

func TestVerifyUnpacked(t *testing.T) {
	dir := t.TempDir()
	archive := filepath.Join(dir, "app.asar")
	if err := asar.WriteFile(archive, sampleEntries(), nil); err != nil {
		t.Fatal(err)
	}
	companion := filepath.Join(archive+".unpacked", "lib", "sub", "addon.node")

	t.Run("intact", func(t *testing.T) {
		is := is.New(t)
		r, err := asar.Open(archive)
		is.NoErr(err)
		defer r.Close()
		res, err := r.Verify(context.Background(), "lib/sub/addon.node")
		is.NoErr(err)
		is.Equal(res.Status, asar.StatusVerified)
		is.True(res.Unpacked)
	})
	t.Run("modified after packing", func(t *testing.T) {
		is := is.New(t)
		is.NoErr(os.WriteFile(companion, []byte("\x7fELF signed later"), 0o644))
		r, err := asar.Open(archive)
		is.NoErr(err)
		defer r.Close()
		results, err := r.VerifyAll(context.Background(), 0)
		is.NoErr(err)
		res := byPath(results)["lib/sub/addon.node"]
		is.Equal(res.Status, asar.StatusMismatched)
		is.True(res.Unpacked)
		is.True(res.DeclaredSHA256 != res.CalculatedSHA256)
		is.Equal(res.ObservedSize, int64(len("\x7fELF signed later")))
	})
	t.Run("missing", func(t *testing.T) {
		is := is.New(t)
		is.NoErr(os.Remove(companion))
		r, err := asar.Open(archive)
		is.NoErr(err)
		defer r.Close()
		res, err := r.Verify(context.Background(), "lib/sub/addon.node")
		is.True(errors.Is(err, asar.ErrUnpackedMissing))
		var pe *fs.PathError
		is.True(errors.As(err, &pe))
		is.Equal(pe.Path, "lib/sub/addon.node") // names the logical path
		is.Equal(res.Status, asar.StatusUnavailable)
		_, err = r.Open("lib/sub/addon.node")
		is.True(errors.Is(err, asar.ErrUnpackedMissing))
		_, err = fs.ReadFile(r.FS(), "lib/sub/addon.node")
		is.True(errors.Is(err, asar.ErrUnpackedMissing))
		results, err := r.VerifyAll(context.Background(), 2)
		is.NoErr(err)
		res = byPath(results)["lib/sub/addon.node"]
		is.Equal(res.Status, asar.StatusUnavailable)
		is.True(errors.Is(res.Err, asar.ErrUnpackedMissing))
	})
	t.Run("escape through a symlink", func(t *testing.T) {
		is := is.New(t)
		secret := filepath.Join(dir, "secret")
		is.NoErr(os.WriteFile(secret, []byte("outside"), 0o644))
		is.NoErr(os.Symlink(secret, companion))
		r, err := asar.Open(archive)
		is.NoErr(err)
		defer r.Close()
		_, err = fs.ReadFile(r.FS(), "lib/sub/addon.node")
		is.True(err != nil) // never reads outside the companion directory
	})
}

func TestVerifyStatuses(t *testing.T) {
	is := is.New(t)
	h := `{"files":{` +
		`"none":{"size":3,"offset":"0"},` +
		`"md5":{"size":3,"offset":"0","integrity":{"algorithm":"MD5","hash":"x","blockSize":4,"blocks":[]}},` +
		`"noTrailing":{"size":4,"offset":"3","integrity":{"algorithm":"SHA256","hash":"88d4266fd4e6338d13b845fcf289579d209c897823b9217da3e161936f031589","blockSize":4,"blocks":["88d4266fd4e6338d13b845fcf289579d209c897823b9217da3e161936f031589"]}},` +
		`"extraBlock":{"size":3,"offset":"0","integrity":{"algorithm":"SHA256","hash":"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad","blockSize":4194304,"blocks":["ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad","00"]}}}}`
	r := memReader(t, rawArchive(h, "abcabcd"), nil)
	results, err := r.VerifyAll(context.Background(), 1)
	is.NoErr(err)
	got := byPath(results)
	is.Equal(got["none"].Status, asar.StatusNoIntegrity)
	is.Equal(got["none"].CalculatedSHA256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
	is.Equal(got["md5"].Status, asar.StatusUnsupported)
	is.Equal(got["noTrailing"].Status, asar.StatusVerified) // a writer may omit the trailing empty block
	is.Equal(got["extraBlock"].Status, asar.StatusMismatched)
	is.Equal(got["extraBlock"].FailedBlocks, []asar.BlockMismatch{{Index: 1, Declared: "00"}})
}

func TestVerifyCancelled(t *testing.T) {
	is := is.New(t)
	r := memReader(t, writeArchive(t, sampleEntries(), nil), nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := r.VerifyAll(ctx, 2)
	is.True(errors.Is(err, context.Canceled))
	_, err = r.Verify(ctx, "lib/big.bin")
	is.True(errors.Is(err, context.Canceled))
}
