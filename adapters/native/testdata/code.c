// code.c is the C fixture of the native provider's code-analysis tests:
// direct and indirect calls, a dense switch (a jump table), recursion,
// function pointers, a hot/cold split under -O2, and a string whose only
// reference is in one known function.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*op_fn)(int, int);

static int op_add(int a, int b) { return a + b; }
static int op_sub(int a, int b) { return a - b; }
static int op_mul(int a, int b) { return a * b; }
static int op_div(int a, int b) { return b ? a / b : 0; }

static op_fn table[] = {op_add, op_sub, op_mul, op_div};

__attribute__((noinline)) static int handler_alpha(const char *s) {
	puts("rea-code-fixture: alpha handler reached");
	return (int)strlen(s);
}

__attribute__((noinline)) static int handler_beta(const char *s) {
	if (s[0] == 0) {
		fprintf(stderr, "empty argument\n");
		abort();
	}
	return s[0] * 3;
}

__attribute__((noinline)) static long factorial(int n) { return n <= 1 ? 1 : n * factorial(n - 1); }

__attribute__((noinline)) int dispatch(int c, const char *arg) {
	switch (c) {
	case 0:
		return puts("rea-code-case-zero");
	case 1:
		return printf("one %s\n", arg);
	case 2:
		return (int)strlen(arg) + 2;
	case 3:
		return atoi(arg) * 7;
	case 4:
		return handler_alpha(arg);
	case 5:
		return handler_beta(arg);
	case 6:
		return (int)factorial(atoi(arg));
	case 7:
		return table[atoi(arg) & 3](3, 4);
	case 8:
		return putchar('8');
	default:
		return -1;
	}
}

int main(int argc, char **argv) {
	int total = 0;
	for (int i = 1; i < argc; i++) {
		total += dispatch(i, argv[i]);
	}
	return total & 0x7f;
}
