/* A child starts a grandchild without the run ID in its environment
   (execve with an empty environment) that ignores the SIGHUP the terminal
   sends when the launcher exits, and exits at once: the grandchild, an
   orphan in the launcher's process group, is provably the capture's only
   by descent while the child lived. Prints the grandchild's pid. With an
   argument the child exits at once, before a sampler can see the
   grandchild as its descendant. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
	(void)argv;
	setvbuf(stdout, NULL, _IONBF, 0);
	int p[2];
	if (pipe(p) != 0) return 1;
	pid_t c = fork();
	if (c == 0) {
		pid_t g = fork();
		if (g == 0) {
			signal(SIGHUP, SIG_IGN);
			close(p[0]);
			close(p[1]);
			char *argv[] = {"sleep", "600", NULL};
			char *envp[] = {NULL};
			execve("/bin/sleep", argv, envp);
			_exit(1);
		}
		/* Stay until the sampler has seen the grandchild as our
		   descendant, then leave it orphaned. */
		if (argc < 2) usleep(300 * 1000);
		write(p[1], &g, sizeof g);
		_exit(0);
	}
	close(p[1]);
	pid_t g = 0;
	if (read(p[0], &g, sizeof g) != sizeof g) return 1;
	waitpid(c, NULL, 0);
	printf("escaped %d\n", (int)g);
	usleep(300 * 1000);
	return 0;
}
