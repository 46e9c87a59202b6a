/* tailcall.c: mid's call of leaf is a tail call (a jump at -O1 and up):
   leaf's entry stops with mid's return address and stack pointer, no new
   return address pushed. main calls mid from one site argv[1] times. */
#include <stdlib.h>

volatile int sink;

__attribute__((noinline)) int leaf(int x) {
	sink = x;
	return 2 * x + 1;
}

__attribute__((noinline)) int mid(int x) {
	sink = x + 100;
	return leaf(x + 1);
}

int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 1, s = 0;
	for (int i = 0; i < n; i++)
		s += mid(10 * i);
	return s & 0x3f;
}
