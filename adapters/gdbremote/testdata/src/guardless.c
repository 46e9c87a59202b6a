/* A thread whose stack has no guard page (pthread_attr_setguardsize 0)
   passes its local's address; then main, while the thread waits, passes
   the same address and that of the thread's __thread variable. */
#include <pthread.h>

__thread int tv = 5;

static pthread_barrier_t ready, done;
static char *shared;
static int *sharedTV;

__attribute__((noinline)) void use(void *p) { __asm__ volatile("" ::"r"(p) : "memory"); }

static void *worker(void *arg) {
	char local[64];
	local[0] = 1;
	use(local);
	shared = local;
	sharedTV = &tv;
	pthread_barrier_wait(&ready);
	pthread_barrier_wait(&done);
	return arg;
}

int main(void) {
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setguardsize(&attr, 0);
	pthread_barrier_init(&ready, NULL, 2);
	pthread_barrier_init(&done, NULL, 2);
	pthread_t t;
	pthread_create(&t, &attr, worker, NULL);
	pthread_barrier_wait(&ready);
	use(shared);   /* the worker's stack, the worker waiting */
	use(sharedTV); /* the worker's TLS, at the top of that stack */
	pthread_barrier_wait(&done);
	pthread_join(t, NULL);
	return 0;
}
