/* Passes a printf-style format with more %s arguments than AArch64 and
   x86-64 have argument registers, so the last ones are on the stack. */
#include <stdarg.h>
#include <stdio.h>

__attribute__((noinline)) int say(const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	int n = vprintf(fmt, ap);
	va_end(ap);
	return n;
}

/* A format longer than the bytes a trace reads of it. */
__attribute__((noinline)) int shout(const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	int n = vprintf(fmt, ap);
	va_end(ap);
	return n;
}

int main(void) {
	shout("%s %d ................................................................................................................................................................................................................................................................ %s\n", "first", 2, "second");
	say("%s-%s-%s-%s-%s-%s-%s-%s-%d-%s\n", "one", "two", "three", "four", "five", "six", "seven", "eight", 9, "ten");
	return 0;
}
