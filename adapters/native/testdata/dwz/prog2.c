#include <stdio.h>
#include "shared.h"

// lowest's DW_AT_const_value is a SLEB128 of ten bytes.
static const counter_t lowest = -9223372036854775807LL - 1;

double __attribute__((noinline)) grow(shape_t *s, struct point *by, counter_t times) {
	if (times == lowest) {
		return 0;
	}
	s->corner.x += by->x * times;
	return s->scale * area(&s->corner);
}

int main(int argc, char **argv) {
	shape_t s = {"two", {argc, 3}, 2.5, 0};
	struct point p = {1, 1};
	printf("%f\n", grow(&s, &p, argc));
	return 0;
}
