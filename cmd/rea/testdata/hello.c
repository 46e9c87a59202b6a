#include <stdio.h>
#include <string.h>

static const char *banner = "rea fixture banner: hello from a known code path";

int helper(int x) { return x * 3 + (int)strlen(banner); }

int main(int argc, char **argv) {
	printf("%s %d\n", banner, helper(argc));
	puts("second fixture string");
	return 0;
}
