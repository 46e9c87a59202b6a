/* The parent calls target(1,...) before and target(3,...) after a fork; the
   child calls target(2,...), which an untraced child must survive. */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) long target(long a, long b, long c) {
	__asm__ volatile("" ::: "memory");
	return a + b + c;
}

int main(void) {
	target(1, 0, 0);
	pid_t pid = fork();
	if (pid == 0) {
		target(2, 0, 0);
		_exit(7);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	target(3, WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0);
	return 0;
}
