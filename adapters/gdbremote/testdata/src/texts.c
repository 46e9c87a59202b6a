/* Passes text to show(): a word, a null pointer, a long string, bytes that
   are not UTF-8, and text that runs to the end of a mapped page with no
   NUL (the next page is unmapped). */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

__attribute__((noinline)) int show(const char *s) {
	__asm__ volatile("" ::: "memory");
	return s ? (int)s[0] : -1;
}

int main(void) {
	static char long_text[301];
	memset(long_text, 'a', 300);
	long pg = sysconf(_SC_PAGESIZE);
	char *two = mmap(0, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(two + pg, pg);
	memcpy(two + pg - 3, "end", 3);
	show("world");
	show(0);
	show(long_text);
	show("\xff\xfeok");
	show(two + pg - 3);
	return 0;
}
