/* An interactive prompt: asks for a name and a password, echoes both. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void) {
	char name[128], pw[128];
	setvbuf(stdout, NULL, _IONBF, 0);
	printf("name? ");
	if (!fgets(name, sizeof name, stdin)) return 2;
	name[strcspn(name, "\n")] = 0;
	printf("hello %s\n", name);
	printf("password? ");
	if (!fgets(pw, sizeof pw, stdin)) return 2;
	pw[strcspn(pw, "\n")] = 0;
	printf("the secret is %s\n", pw);
	printf("pid=%d port=:8080 tmp=%s\n", (int)getpid(), getenv("TMPDIR") ? getenv("TMPDIR") : "");
	return 3;
}
