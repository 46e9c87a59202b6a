// inlined.c: at -O2 scaled is inlined into main and, being external, also
// kept out of line. The debug entry of that copy names neither the function
// nor its parameters: it refers to the abstract entry (DW_AT_abstract_origin)
// that gcc and clang emit for every function they inline.
#include <stdio.h>

long scaled(long v, const char *tag) {
	printf("%s %ld\n", tag, v);
	return v * 3;
}

int main(int argc, char **argv) { return (int)scaled(argc, argv[0]); }
