// valueflow.c is the fixture of the value-flow tests: parameters read in
// registers, a store through a pointer parameter, a leaf without
// arguments, a call whose argument is computed, and a global store.
#include <stdio.h>

int counter;

__attribute__((noinline)) int add3(int a, int b, int c) { return a + b + c; }

__attribute__((noinline)) void store_through(int *p, int v) { *p = v; }

__attribute__((noinline)) int leaf_noargs(void) { return 42; }

__attribute__((noinline)) int calls_add3(int x) { return add3(x, 2, 3) * 2; }

__attribute__((noinline)) void bump(void) { counter += 1; }

__attribute__((noinline)) double scale(double d, int n) { return d * n; }

int main(int argc, char **argv) {
	int v = 0;
	store_through(&v, argc);
	bump();
	printf("%d %d %d %f\n", add3(argc, v, 1), leaf_noargs(), calls_add3(argc), scale(1.5, argc));
	return counter;
}
