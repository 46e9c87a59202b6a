/* Forks a child that forks a grandchild (both ignore the SIGHUP the
   terminal sends when the launcher exits), and a daemon that leaves the
   session (setsid) and closes the terminal; then exits, leaving them. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(void) {
	setvbuf(stdout, NULL, _IONBF, 0);
	pid_t c = fork();
	if (c == 0) {
		signal(SIGHUP, SIG_IGN);
		if (fork() == 0) {
			execlp("sleep", "sleep", "600", (char *)NULL);
			_exit(1);
		}
		pause();
		_exit(0);
	}
	pid_t d = fork();
	if (d == 0) {
		setsid();
		if (fork() != 0) _exit(0);
		int fd = open("/dev/null", O_RDWR);
		dup2(fd, 0); dup2(fd, 1); dup2(fd, 2);
		for (;;) pause();
	}
	usleep(300 * 1000);
	printf("forked\n");
	return 0;
}
