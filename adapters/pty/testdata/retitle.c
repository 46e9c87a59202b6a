// Command retitle rewrites its argv in place, as setproctitle does (nginx,
// postgres): it waits for a line on stdin, overwrites the whole argument
// area with a new title and NULs, says so, waits for another line (and
// keeps its title for a while after), and exits. No exec, no rename.
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
	char line[64];
	char *end = argv[argc - 1] + strlen(argv[argc - 1]);
	const char *title = "retitled: worker";
	printf("ready\n");
	fflush(stdout);
	if (!fgets(line, sizeof line, stdin))
		return 1;
	if ((size_t)(end - argv[0]) < strlen(title))
		return 2;
	memset(argv[0], 0, end - argv[0]);
	strcpy(argv[0], title);
	printf("retitled\n");
	fflush(stdout);
	if (!fgets(line, sizeof line, stdin))
		return 1;
	usleep(200000);
	printf("bye\n");
	return 0;
}
