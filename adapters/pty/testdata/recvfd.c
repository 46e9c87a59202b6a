// Command recvfd is handed a listening socket: it waits for a line on
// stdin, connects to the Unix socket argv[1], receives one descriptor
// (SCM_RIGHTS), closes the connection, says so, and holds the descriptor
// until another line.
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv) {
	char line[64], b;
	char ctl[CMSG_SPACE(sizeof(int))];
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct iovec iov = {.iov_base = &b, .iov_len = 1};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl};
	int c, fd;
	if (argc < 2 || strlen(argv[1]) >= sizeof sa.sun_path)
		return 2;
	printf("ready\n");
	fflush(stdout);
	if (!fgets(line, sizeof line, stdin))
		return 1;
	strcpy(sa.sun_path, argv[1]);
	c = socket(AF_UNIX, SOCK_STREAM, 0);
	if (c < 0 || connect(c, (struct sockaddr *)&sa, sizeof sa) < 0 || recvmsg(c, &m, 0) <= 0 || !CMSG_FIRSTHDR(&m))
		return 3;
	memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&m)), sizeof fd);
	close(c);
	printf("received %d\n", fd);
	fflush(stdout);
	if (!fgets(line, sizeof line, stdin))
		return 1;
	printf("bye\n");
	return 0;
}
