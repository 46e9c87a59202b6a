// Two static functions called with a constant argument, so gcc -O2 makes
// specialized copies of them (mul.constprop.0, pre.constprop.0) that take
// no argument for it: its DWARF parameter has DW_AT_const_value and no
// location, and the other parameters take the registers from the first.
// adapters/native's and cmd/rea's tests build it.
#include <stdio.h>
static __attribute__((noinline)) long mul(long x, long k) { return x * k + (x >> 3); }
static __attribute__((noinline)) long pre(long k, long x, long y) { return x * k - y; }
int main(int argc, char **argv) {
	printf("%ld %ld\n", mul(argc, 7), mul(argc + 1, 7));
	printf("%ld\n", pre(9, argc, 3 * argc) + pre(9, argc * 5, argc));
	return 0;
}
