/* sscanf calls whose pointers the tracer places and whose stores it reads
   at the return: a local int (%d), a heap buffer (%s), nothing for %*d and
   a local count (%n, no assignment); then seven pointers, past the
   argument registers on every convention, the heap buffer's last. And a
   wprintf whose wide format the tracer decodes (wchar_t's 4 bytes). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

int main(void) {
	int a = 0, n = 0, v[6] = {0};
	char *heap = malloc(32);
	int k = sscanf("41 word 7 rest", "%d %s %*d %n", &a, heap, &n);
	k += sscanf("1 2 3 4 5 6 tail", "%d %d %d %d %d %d %s", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], heap);
	wprintf(L"%d %ls\n", a, L"wide");
	int ok = k == 9 && a == 41 && n == 10 && v[5] == 6 && strcmp(heap, "tail") == 0;
	free(heap);
	return ok ? 0 : 1;
}
