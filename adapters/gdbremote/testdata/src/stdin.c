/* Exits 3 when its standard input is at end of file, 4 otherwise. */
#include <stdio.h>

int main(void) { return getchar() == EOF ? 3 : 4; }
