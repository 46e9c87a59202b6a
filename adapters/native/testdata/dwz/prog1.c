#include <stdio.h>
#include "shared.h"

int __attribute__((noinline)) measure(shape_t *s, counter_t n, const char *label, double k) {
	printf("%s %lld %f\n", label, n, k);
	return area(&s->corner) + (int)s->scale;
}

// pick takes two arguments and reads one: only DWARF says a call passes both.
int __attribute__((noipa)) pick(int a, int b) { return a * 3; }

struct pair __attribute__((noinline)) span(const shape_t *s, float f) {
	struct pair p = {s->corner.x, s->corner.y, (counter_t)f};
	return p;
}

int main(int argc, char **argv) {
	shape_t s = {"one", {argc, 2}, 1.5, 0};
	struct pair p = span(&s, 2.5f);
	return measure(&s, argc, argv[0], 2.0) + pick(argc, argc + 5) + (int)p.hi;
}
