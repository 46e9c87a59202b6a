// Command handoff leaves a listening socket to a child. It forks a parent,
// which listens on a loopback port, forks a child that keeps the socket,
// says so (the port and both pids) and exits at the first line on stdin.
// It (the keeper) then says the parent is gone and exits at the next line;
// the child, which waits for the keeper's end of a pipe to close, exits
// with it.
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static void line(void) {
	char b[64];
	while (read(0, b, sizeof b) < 0 && errno == EINTR)
		;
}

int main(void) {
	int done[2], s;
	pid_t p, c;
	if (pipe(done) < 0)
		return 1;
	p = fork();
	if (p < 0)
		return 1;
	if (p == 0) {
		struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
		socklen_t n = sizeof a;
		close(done[1]);
		s = socket(AF_INET, SOCK_STREAM, 0);
		if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) < 0 || listen(s, 1) < 0 ||
		    getsockname(s, (struct sockaddr *)&a, &n) < 0)
			_exit(2);
		c = fork();
		if (c < 0)
			_exit(3);
		if (c == 0) {
			char b;
			ssize_t r;
			while ((r = read(done[0], &b, 1)) > 0 || (r < 0 && errno == EINTR))
				;
			_exit(0);
		}
		close(done[0]);
		printf("listening 127.0.0.1:%d parent %d child %d\n", ntohs(a.sin_port), (int)getpid(), (int)c);
		fflush(stdout);
		line();
		_exit(0);
	}
	close(done[0]);
	waitpid(p, NULL, 0);
	printf("parent gone\n");
	fflush(stdout);
	line();
	printf("bye\n");
	return 0;
}
