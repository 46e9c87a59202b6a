/* Ignores SIGTERM and never exits by itself. */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int main(void) {
	signal(SIGTERM, SIG_IGN);
	setvbuf(stdout, NULL, _IONBF, 0);
	printf("ignoring SIGTERM\n");
	for (;;) pause();
}
