/* A thread whose stack has no guard page (pthread_attr_setguardsize 0)
   passes its local's address; main waits for it. */
#include <pthread.h>
#include <stdio.h>

__attribute__((noinline)) void use(void *p) { __asm__ volatile("" ::"r"(p) : "memory"); }

static void *worker(void *arg) {
	char local[64];
	local[0] = 1;
	use(local);
	if (arg) {
		char line[256];
		FILE *f = fopen("/proc/self/maps", "r");
		while (f && fgets(line, sizeof line, f))
			fputs(line, stdout);
		printf("local %p\n", (void *)local);
	}
	return arg;
}

int main(int argc, char **argv) {
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setguardsize(&attr, 0);
	pthread_t t;
	pthread_create(&t, &attr, worker, argc > 1 ? argv : NULL);
	pthread_join(t, NULL);
	return 0;
}
