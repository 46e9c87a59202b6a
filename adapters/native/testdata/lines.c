// lines.c: static inline functions called in loops, one inlined into
// another, so that -O2 builds carry chains of DW_TAG_inlined_subroutine
// entries; source_test.go compares rea's source lines with addr2line's.
#include <stdio.h>
#include <stdlib.h>

static inline int clamp(int v, int lo, int hi) {
	if (v < lo)
		return lo;
	if (v > hi)
		return hi;
	return v;
}

static inline int scale(int v, int k) {
	int s = v * k;
	return clamp(s, -1000, 1000);
}

static int checksum(const char *s) {
	int sum = 0;
	for (; *s; s++)
		sum = sum * 31 + scale(*s, 3);
	return sum;
}

int total(int n, char **args) {
	int t = 0;
	for (int i = 0; i < n; i++) {
		t += checksum(args[i]);
		t = clamp(t, -100000, 100000);
	}
	return t;
}

int main(int argc, char **argv) {
	int t = total(argc, argv);
	for (int i = 0; i < argc; i++)
		t ^= scale(atoi(argv[i]), i + 1);
	printf("%d\n", t);
	return t & 1;
}
