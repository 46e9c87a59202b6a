// hello.c is the C fixture for the native provider's tests. It has global and
// static functions, calls into libc through the PLT, a global object, and
// known ASCII and UTF-16LE string literals whose addresses the tests check.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uchar.h>

const char ascii_marker[] = "rea-fixture-ascii-marker";
const char16_t utf16_marker[] = u"rea UTF-16 marker \u00e9t\u00e9";
int counter = 7;

static int __attribute__((noinline)) square(int x) { return x * x; }

int __attribute__((noinline)) add(int a, int b) { return a + b + square(counter); }

void __attribute__((noinline)) greet(const char *who) {
	printf("hello, %s (%zu)\n", who, strlen(who));
}

int main(int argc, char **argv) {
	greet(argc > 1 ? argv[1] : "world");
	char *p = malloc(16);
	if (p == NULL) {
		return 1;
	}
	snprintf(p, 16, "%d", add(argc, 2));
	puts(p);
	free(p);
	puts(ascii_marker);
	return (int)utf16_marker[argc % 4];
}
