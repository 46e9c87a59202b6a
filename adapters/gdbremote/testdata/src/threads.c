/* Four threads each call target() with their own number. */
#include <pthread.h>
#include <stdio.h>

__attribute__((noinline)) long target(long a, long b, long c) {
	__asm__ volatile("" ::: "memory");
	return a + b + c;
}

static void *worker(void *arg) {
	long n = (long)arg;
	target(n, n * 2, 7);
	return NULL;
}

int main(void) {
	pthread_t t[4];
	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, (void *)(i + 10));
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	return 0;
}
