/* printf-family calls whose format's pointer conversions the tracer
   places: a heap buffer (%s), a local (%p) and a number (%d), first in as
   few argument places as the convention gives, then past seven numbers
   (on the stack on every convention) with the heap buffer's address as a
   number (%lx, not placed); and sprintf's %s of a file's
   mapping (argv[1] from offset 4096: the text at its byte 5). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int main(int argc, char **argv) {
	int stack_var = argc;
	char *heap_buf = malloc(32);
	strcpy(heap_buf, "heap");
	printf("%s %p %d\n", heap_buf, (void *)&stack_var, 7);
	printf("%d %d %d %d %d %d %d %s %p %d %lx\n", 1, 2, 3, 4, 5, 6, 7, heap_buf, (void *)&stack_var, 7, (unsigned long)heap_buf);
	int fd = open(argv[1], O_RDONLY);
	char *f = mmap(0, 4096, PROT_READ, MAP_PRIVATE, fd, 4096);
	if (f == MAP_FAILED)
		return 1;
	char out[64];
	sprintf(out, "%d %d %d %d %d %d %s", 1, 2, 3, 4, 5, 6, f + 5);
	puts(out);
	free(heap_buf);
	return stack_var == argc ? 0 : 1;
}
