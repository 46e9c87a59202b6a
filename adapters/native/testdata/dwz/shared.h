// shared.h: the types and inline functions the dwz fixtures (dwz_test.go)
// share, so that dwz -m moves their debug entries and strings into a
// supplementary file.
#include <stddef.h>

struct point {
	int x, y;
};

typedef struct shape {
	const char *name;
	struct point corner;
	double scale;
	struct shape *next;
} shape_t;

typedef long long counter_t;

struct pair {
	counter_t lo, hi, extra; // 24 bytes: returned in memory under SysV
};

static inline int area(const struct point *p) { return p->x * p->y; }
