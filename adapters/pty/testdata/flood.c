/* Writes argv[1] lines of 63 bytes as fast as it can, then exits. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
	long n = argc > 1 ? atol(argv[1]) : 100000;
	char line[64];
	memset(line, 'x', sizeof line);
	line[63] = '\n';
	for (long i = 0; i < n; i++)
		if (write(1, line, sizeof line) < 0) return 1;
	return 0;
}
