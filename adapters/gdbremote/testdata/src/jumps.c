/* Same-level stops that are no tail call, and a tail call that is no
   unwind. argv[1] "p": main calls first, then second, through one pointer
   from one site; first(n) longjmps back to main, so second is a new call,
   not first's tail call. "s": main calls down(3), which tail-calls itself
   through a pointer down to down(0); each returns 0 with the last. */
#include <setjmp.h>

static jmp_buf env;
volatile int sink;

__attribute__((noinline, noclone)) int first(int n) {
	sink = n;
	longjmp(env, 1);
}

__attribute__((noinline, noclone)) int second(int n) {
	sink = n;
	return n + 1;
}

int down(int n);
int (*volatile self)(int) = down;

__attribute__((noinline, noclone)) int down(int n) {
	sink = n;
	if (n == 0)
		return 0;
	return self(n - 1);
}

int (*volatile fns[2])(int) = {first, second};

int main(int argc, char **argv) {
	if (argc > 1 && argv[1][0] == 's')
		return down(3);
	volatile int i = 0;
	setjmp(env);
	if (i < 2) {
		int k = i++;
		sink = fns[k](k);
	}
	return sink;
}
