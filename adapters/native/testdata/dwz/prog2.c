#include <stdio.h>
#include "shared.h"

double __attribute__((noinline)) grow(shape_t *s, struct point *by, counter_t times) {
	s->corner.x += by->x * times;
	return s->scale * area(&s->corner);
}

int main(int argc, char **argv) {
	shape_t s = {"two", {argc, 3}, 2.5, 0};
	struct point p = {1, 1};
	printf("%f\n", grow(&s, &p, argc));
	return 0;
}
