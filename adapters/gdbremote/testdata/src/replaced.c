/* A file's mapping replaced at the same address by another file's
   (argv[1] at offset 0, then argv[2] at offset 4096), a pointer into each
   passed to use(). */
#include <fcntl.h>
#include <stddef.h>
#include <sys/mman.h>

__attribute__((noinline)) void use(void *p) { __asm__ volatile("" ::"r"(p) : "memory"); }

int main(int argc, char **argv) {
	if (argc < 3)
		return 1;
	int a = open(argv[1], O_RDONLY), b = open(argv[2], O_RDONLY);
	char *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, a, 0);
	if (p == MAP_FAILED)
		return 2;
	use(p + 5);
	char *q = mmap(p, 4096, PROT_READ, MAP_PRIVATE | MAP_FIXED, b, 4096);
	if (q != p)
		return 3;
	use(q + 6);
	return 0;
}
