/* Functions the C library calls back: qsort's comparator and a thread's
   start routine, whose callers are in libc. */
#include <pthread.h>
#include <stdlib.h>

__attribute__((noinline)) int cmp(const void *a, const void *b) {
	return *(const int *)a - *(const int *)b;
}

__attribute__((noinline)) void *worker(void *arg) {
	int v[3] = {3, 1, 2};
	qsort(v, 3, sizeof v[0], cmp);
	return arg;
}

int main(void) {
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	return 0;
}
