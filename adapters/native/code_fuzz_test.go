package native_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"testing"

	"rea/adapters/native"
	"rea/ports"
)

// codeTyped reports whether err is one the code capabilities promise.
func codeTyped(err error) bool {
	return err == nil || typed(err) || errors.Is(err, ports.ErrNotFound)
}

// FuzzDiscover parses arbitrary files and runs whole-binary discovery,
// every function's decoding, references, disassembly, byte reads and value
// flow: no panic, no hang, only typed errors. Seeds are the gcc and g++ fixtures (whole, and
// with their headers and code bytes flipped).
func FuzzDiscover(f *testing.F) {
	codeFixtures()
	for _, name := range []string{"c", "c-stripped", "code-O2-stripped", "code-nounwind-stripped", "ptr-pie", "vtable"} {
		path, err := buildFixture(f.Context(), name)
		if err != nil {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		for _, at := range []int{0x20, 0x1040, 0x1100, 0x1180} {
			if at+8 < len(data) {
				d := bytes.Clone(data)
				for k := range 8 {
					d[at+k] ^= 0xff
				}
				f.Add(d)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx := context.Background()
		a, err := native.NewAnalysis(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		defer a.Close(ctx)
		check := func(what string, err error) {
			if !codeTyped(err) {
				t.Fatalf("%s: untyped error %T: %v", what, err, err)
			}
		}
		loads, err := a.LoadSegments(ctx)
		check("load segments", err)
		for k, s := range loads {
			if k >= 16 {
				break
			}
			_, err = a.ReadBytes(ctx, s.Start, 64) // through the segment when no section maps it
			check("read bytes", err)
			_, err = a.ReadBytes(ctx, s.Start+s.Size-1, 64)
			check("read bytes", err)
		}
		procs, err := a.Procedures(ctx)
		check("procedures", err)
		ranges, err := a.FunctionRanges(ctx)
		check("ranges", err)
		if err == nil && len(ranges) != len(procs) {
			t.Fatalf("%d ranges for %d procedures", len(ranges), len(procs))
		}
		for k, r := range ranges {
			if k >= 64 {
				break
			}
			fn, err := a.Function(ctx, ports.FunctionRequest{Address: r.Start, MaxInstructions: 64})
			check("function", err)
			if err == nil && len(fn.Instructions) > 64 {
				t.Fatal("more instructions than asked")
			}
			_, err = a.ReferencesFrom(ctx, r.Start, r.End)
			check("references from", err)
			_, err = a.ReferencesTo(ctx, r.Start, r.Start+1)
			check("references to", err)
			_, err = a.Disassemble(ctx, ports.DisassembleRequest{Address: r.Start, MaxInstructions: 16})
			check("disassemble", err)
			_, err = a.ReadBytes(ctx, r.Start, 64)
			check("read bytes", err)
			_, err = a.Signature(ctx, r.Start)
			check("signature", err)
			_, err = a.ValueFlow(ctx, ports.FunctionRequest{Address: r.Start, MaxInstructions: 256})
			check("value flow", err)
		}
	})
}
