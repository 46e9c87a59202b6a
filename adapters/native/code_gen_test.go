package native_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// genProgram writes a deterministic C program of n functions: calls between
// them, dense switches (jump tables), loops, function pointers stored in a
// table and passed as arguments, variadic calls, cold error paths and unique
// strings. The differential tests compile it in several ways: a larger
// population of functions than the hand-written fixtures.
func genProgram(n int) string {
	r := rand.New(rand.NewPCG(7, 11))
	var b strings.Builder
	b.WriteString("#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\n")
	b.WriteString("typedef int (*fn)(int);\n")
	for i := range n {
		fmt.Fprintf(&b, "%sint f%d(int x);\n", storage(r, i), i)
	}
	b.WriteString("extern fn table[];\n\n")
	for i := range n {
		fmt.Fprintf(&b, "%s__attribute__((noinline)) int f%d(int x) {\n", storage(r, i), i)
		callee := func() int { return r.IntN(n) }
		switch r.IntN(6) {
		case 0: // a dense switch: a jump table
			b.WriteString("\tswitch (x & 15) {\n")
			for c := range 9 + r.IntN(6) {
				fmt.Fprintf(&b, "\tcase %d: return f%d(x + %d) + %d;\n", c, callee(), c, r.IntN(100))
			}
			fmt.Fprintf(&b, "\tdefault: return x * %d;\n\t}\n", 3+r.IntN(9))
		case 1: // a loop with a call
			fmt.Fprintf(&b, "\tint s = 0;\n\tfor (int i = 0; i < x; i++) {\n\t\ts += f%d(i) ^ %d;\n\t}\n\treturn s;\n", callee(), r.IntN(1000))
		case 2: // through the pointer table
			fmt.Fprintf(&b, "\treturn table[(x + %d) & 63](x) + 1;\n", r.IntN(64))
		case 3: // a cold error path and a string
			fmt.Fprintf(&b, "\tif (x < -%d) {\n\t\tfprintf(stderr, \"gen-%d failure %%d\\n\", x);\n\t\tabort();\n\t}\n\treturn f%d(x - 1) + (int)strlen(\"gen-string-%d\");\n", 1000+r.IntN(1000), i, callee(), i)
		case 4: // a function pointer argument
			fmt.Fprintf(&b, "\tfn p = (x & 1) ? f%d : f%d;\n\treturn p(x / 2) * %d;\n", callee(), callee(), 2+r.IntN(5))
		default: // arithmetic, and a variadic call
			fmt.Fprintf(&b, "\tif (x == %d) {\n\t\tprintf(\"gen-%d %%d\\n\", x);\n\t}\n\treturn x * %d + %d;\n", r.IntN(50), i, 1+r.IntN(7), r.IntN(100))
		}
		b.WriteString("}\n\n")
	}
	b.WriteString("fn table[] = {")
	for i := range 64 {
		fmt.Fprintf(&b, "f%d, ", r.IntN(n)+0*i)
	}
	b.WriteString("};\n\nint main(int argc, char **argv) {\n\tint s = 0;\n")
	for range 8 {
		fmt.Fprintf(&b, "\ts += f%d(argc);\n", r.IntN(n))
	}
	b.WriteString("\treturn s & 0x7f;\n}\n")
	return b.String()
}

func storage(r *rand.Rand, i int) string {
	// Deterministic per function, independent of r's state.
	if i%3 == 0 {
		return "static "
	}
	return ""
}

// genFixture compiles the generated program with flags.
func genFixture(name string, flags ...string) *fixture {
	cc, tools := "gcc", []string{"gcc"}
	switch {
	case strings.HasPrefix(name, "clang-a64-"): // clang links with the cross gcc's libraries
		cc, tools = "clang", []string{"clang", "aarch64-linux-gnu-gcc"}
		flags = append([]string{"--target=aarch64-linux-gnu"}, flags...)
	case strings.HasPrefix(name, "clang-"):
		cc, tools = "clang", []string{"clang"}
	case strings.HasPrefix(name, "a64-"):
		cc, tools = "aarch64-linux-gnu-gcc", []string{"aarch64-linux-gnu-gcc"}
	}
	return &fixture{tools: tools, build: func(ctx context.Context) (string, error) {
		src := filepath.Join(fixtureDir, "gen.c")
		if err := os.WriteFile(src, []byte(genProgram(600)), 0o644); err != nil {
			return "", err
		}
		out := filepath.Join(fixtureDir, name)
		args := append(append([]string{}, flags...), "-w", "-o", out, src)
		_, err := run(ctx, "", nil, cc, args...)
		return out, err
	}}
}
