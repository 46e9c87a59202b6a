#include <stdio.h>
#include "shared.h"

const char *__attribute__((noinline)) label(const shape_t *s, struct point *origin) {
	return area(origin) > area(&s->corner) ? s->name : "small";
}

int main(int argc, char **argv) {
	shape_t s = {"three", {argc, 4}, 3.5, 0};
	struct point o = {2, 2};
	puts(label(&s, &o));
	return 0;
}
