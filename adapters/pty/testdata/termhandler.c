/* Says so and exits when SIGTERM arrives; otherwise waits forever. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void on_term(int sig) {
	(void)sig;
	const char msg[] = "got SIGTERM\n";
	write(1, msg, sizeof msg - 1);
	_exit(0);
}

int main(void) {
	signal(SIGTERM, on_term);
	setvbuf(stdout, NULL, _IONBF, 0);
	printf("waiting\n");
	for (;;) pause();
}
