package native

import "testing"

// armLibc is Debian's AArch64 C library (libc6-arm64-cross), a large
// AArch64 binary with many switches.
const armLibc = "/usr/aarch64-linux-gnu/lib/libc.so.6"

// BenchmarkSweepARM64 sweeps the .text of the AArch64 C library with the
// decoder discovery uses (jump tables included); it reports ns per
// instruction and the indirect jumps a table resolved.
func BenchmarkSweepARM64(b *testing.B) {
	mm, src, text, code := benchText(b, armLibc, archARM64)
	d := newDecoder(archARM64, mm, src)
	n, tables := 0, 0
	for b.Loop() {
		tables = 0
		k, _ := sweep(d, code, text.addr, text.addr+uint64(len(code)), len(code), func(in *insn) bool {
			if len(in.table) > 0 {
				tables++
			}
			return true
		})
		n += k
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/insn")
	b.ReportMetric(float64(tables), "tables")
}

// BenchmarkOpenARM64 opens the AArch64 C library and lists its
// procedures (discovery's whole-file sweeps).
func BenchmarkOpenARM64(b *testing.B) {
	for b.Loop() {
		a, err := OpenFile(b.Context(), armLibc)
		if err != nil {
			b.Skip(err)
		}
		if _, err := a.Procedures(b.Context()); err != nil {
			b.Fatal(err)
		}
		a.Close(b.Context())
	}
}
