/* A program that dlopens a library with a large __thread array (argv[1],
   built from tlsplugin.c) before its traced calls: errno's address from
   main, and a worker's local, which lies below the worker's TLS in its
   stack. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>

__attribute__((noinline)) void use(void *p, long off, long who) { __asm__ volatile("" ::"r"(p), "r"(off), "r"(who) : "memory"); }

static void *worker(void *arg) {
	char local[64];
	local[0] = 1;
	use(local, 0, 3);
	return arg;
}

int main(int argc, char **argv) {
	if (argc < 2 || !dlopen(argv[1], RTLD_NOW))
		return 1;
	char *tp = __builtin_thread_pointer();
	use(&errno, (char *)&errno - tp, 1);
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	return 0;
}
