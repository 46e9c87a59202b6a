/* Calls target(i, 1, 2) for i = 0, 1, 2, ... every few milliseconds, forever. */
#include <unistd.h>

__attribute__((noinline)) long target(long a, long b, long c) {
	__asm__ volatile("" ::: "memory");
	return a + b + c;
}

int main(void) {
	for (long i = 0;; i++) {
		target(i, 1, 2);
		usleep(2000);
	}
}
