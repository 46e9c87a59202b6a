/* Memory shaped as a heap of one of glibc's thread arenas but the
   program's own: an arena-size-aligned read-write mapping followed by
   PROT_NONE to the end of the arena size, holding no heap_info. */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

__attribute__((noinline)) void use(void *p) { __asm__ volatile("" ::"r"(p) : "memory"); }

int main(void) {
	uintptr_t size = sizeof(void *) == 8 ? 64 << 20 : 1 << 20;
	char *r = mmap(NULL, 2 * size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r == MAP_FAILED)
		return 1;
	char *a = (char *)(((uintptr_t)r + size - 1) & ~(size - 1));
	if (mprotect(a, 0x21000, PROT_READ | PROT_WRITE))
		return 2;
	memset(a, 'A', 64);
	use(a + 0x100);
	return 0;
}
