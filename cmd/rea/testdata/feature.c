// feature.c is the fixture of the code-analysis end-to-end test: a known
// code path main -> dispatch -> handler, where handler is the only code that
// references a unique string, and a sibling path dispatch -> fallback.
#include <stdio.h>
#include <string.h>

__attribute__((noinline)) static int handler(const char *s) {
	puts("rea-feature: unique handler string");
	return (int)strlen(s);
}

__attribute__((noinline)) static int fallback(const char *s) { return s[0] + 1; }

__attribute__((noinline)) int dispatch(int c, const char *s) {
	if (c > 1) {
		return handler(s);
	}
	return fallback(s);
}

int main(int argc, char **argv) { return dispatch(argc, argv[0]) & 0x7f; }
