/* A signal handler on an alternate stack above the thread's stack: a second
   thread calls work, whose raise(SIGUSR1) runs the handler on an alternate
   stack in main's frame (the main thread's stack, above every other
   thread's); the handler calls noted(10), and work then returns 2. */
#include <pthread.h>
#include <signal.h>
#include <string.h>

volatile int sink;
static char *alt;

__attribute__((noinline, noclone)) void noted(int n) {
	sink = -n;
}

static void handler(int sig) {
	noted(sig);
}

__attribute__((noinline, noclone)) int work(int n) {
	raise(SIGUSR1);
	return n + 1;
}

static void *thread(void *arg) {
	stack_t ss = {.ss_sp = alt, .ss_size = 1 << 16};
	sigaltstack(&ss, 0);
	return (void *)(long)work(1);
}

int main(void) {
	char buf[1 << 16];
	alt = buf;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR1, &sa, 0);
	pthread_t t;
	void *r;
	pthread_create(&t, 0, thread, 0);
	pthread_join(t, &r);
	return (int)(long)r;
}
