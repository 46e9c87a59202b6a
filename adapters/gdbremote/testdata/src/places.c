/* Pointers for the tracer to place: a worker thread's stack (from the
   worker and from main), a thread arena's heap, malloc's mmap'd chunk, an
   anonymous mapping, a file's mapping (argv[1] at offset 4096), the brk
   heap, main's stack, and a number that is no address. */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static pthread_barrier_t ready, done;
static char *shared;

static void *worker(void *arg) {
	char local[64];
	strcpy(local, "worker\n");
	write(1, local, 7);
	char *h = malloc(32); /* from a thread arena */
	strcpy(h, "h");
	write(1, h, 1);
	shared = local;
	pthread_barrier_wait(&ready);
	pthread_barrier_wait(&done);
	free(h);
	return arg;
}

int main(int argc, char **argv) {
	char mine[32];
	strcpy(mine, "main\n");
	pthread_t t;
	pthread_barrier_init(&ready, NULL, 2);
	pthread_barrier_init(&done, NULL, 2);
	pthread_create(&t, NULL, worker, NULL);
	pthread_barrier_wait(&ready);
	write(1, shared, 7); /* the worker's stack, the worker blocked */
	pthread_barrier_wait(&done);
	pthread_join(t, NULL);
	char *big = malloc(1 << 20); /* mmap'd by malloc */
	memset(big, 'b', 16);
	write(1, big, 1);
	char *anon = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	anon[16] = 'a';
	write(1, anon + 16, 1);
	int fd = argc > 1 ? open(argv[1], O_RDONLY) : -1;
	char *file = fd < 0 ? MAP_FAILED : mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 4096);
	if (file == MAP_FAILED)
		return 1;
	write(1, file + 5, 1);
	char *small = malloc(32); /* the brk heap */
	strcpy(small, "s");
	write(1, small, 1);
	write(1, mine, 5);
	write(-1, (void *)0x123456789, 0); /* in no mapping */
	return 0;
}
