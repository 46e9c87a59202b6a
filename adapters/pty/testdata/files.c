/* In directory argv[1]: creates new.txt, rewrites mod.txt, removes del.txt;
   writes argv[2]/outside.txt, outside the observation path. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void put(const char *dir, const char *name, const char *text) {
	char p[4096];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	if (!f) { perror(p); return; }
	fputs(text, f);
	fclose(f);
}

int main(int argc, char **argv) {
	if (argc < 3) return 2;
	char p[4096];
	put(argv[1], "new.txt", "created\n");
	put(argv[1], "mod.txt", "changed\n");
	snprintf(p, sizeof p, "%s/del.txt", argv[1]);
	unlink(p);
	put(argv[2], "outside.txt", "outside\n");
	printf("files done\n");
	return 0;
}
