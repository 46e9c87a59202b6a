/* Calls left by longjmp: leave jumps for every even n, so work(n) and
   leave(n) never return then. The jump lands in main's setjmp, and main
   calls work again from the same site with the same stack pointer; with
   a second argument n, main calls noted after each jump; with g, the jump
   lands in guarded's, which returns to main. The loop runs argv[1] times
   (default 6) or, with 0, until the trace ends it. */
#include <setjmp.h>
#include <stdlib.h>

static jmp_buf env;
volatile int sink;

__attribute__((noinline, noclone)) void leave(int n) {
	if (n % 2 == 0)
		longjmp(env, 1);
	sink = n;
}

__attribute__((noinline, noclone)) int work(int n) {
	leave(n);
	return n + sink;
}

__attribute__((noinline, noclone)) int guarded(int n) {
	if (setjmp(env) != 0)
		return -1;
	return work(n);
}

__attribute__((noinline, noclone)) void noted(int n) {
	sink = -n;
}

int main(int argc, char **argv) {
	int limit = argc > 1 ? atoi(argv[1]) : 6;
	char mode = argc > 2 ? argv[2][0] : 0;
	for (volatile int i = 0; limit == 0 || i < limit; i++) {
		if (mode == 'g')
			sink = guarded(i);
		else if (setjmp(env) == 0)
			sink = work(i);
		else if (mode == 'n')
			noted(i);
	}
	return 0;
}
