/* Pointers into threads' thread-local storage for the tracer to place:
   errno's address and a __thread variable's, in the main thread and in a
   worker, each passed to use() with the program's own offset from the
   owning thread's pointer (the oracle, printed too), and the thread's
   descriptor (pthread_self). The worker also passes main's variable, and
   main the worker's while the worker waits, so a thread's TLS is placed
   from another thread. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

__thread int t = 7;
__thread char pad[100];

static pthread_barrier_t ready, done;
static int *mains, *workers;
static char *mainTP, *workerTP;

__attribute__((noinline)) void use(void *p, long off, long who) {
	printf("%ld %p %ld\n", who, p, off);
	__asm__ volatile("" ::"r"(p) : "memory");
}

static void mine(long who) {
	char *tp = __builtin_thread_pointer();
	int *e = &errno;
	use(e, (char *)e - tp, who);
	use(&t, (char *)&t - tp, who);
	use(pad + 3, pad + 3 - tp, who);
	use((void *)pthread_self(), (char *)pthread_self() - tp, who);
}

static void *worker(void *arg) {
	workerTP = __builtin_thread_pointer();
	workers = &t;
	mine(2);
	use(mains, (char *)mains - mainTP, 1); /* main's variable, from here */
	pthread_barrier_wait(&ready);
	pthread_barrier_wait(&done);
	return arg;
}

int main(void) {
	mainTP = __builtin_thread_pointer();
	mains = &t;
	mine(1);
	pthread_t th;
	pthread_barrier_init(&ready, NULL, 2);
	pthread_barrier_init(&done, NULL, 2);
	pthread_create(&th, NULL, worker, NULL);
	pthread_barrier_wait(&ready);
	use(workers, (char *)workers - workerTP, 2); /* the worker's, from main */
	pthread_barrier_wait(&done);
	pthread_join(th, NULL);
	return 0;
}
