/* A PIE with a few thousand RELATIVE relocations (a table of function
   pointers) and an init array: the relocation table is large enough for a
   test to tell one read of it from two. */
static int a(int x) { return x + 1; }
static int b(int x) { return x - 1; }
#define P8 a, b, a, b, a, b, a, b
#define P64 P8, P8, P8, P8, P8, P8, P8, P8
#define P512 P64, P64, P64, P64, P64, P64, P64, P64
int (*table[])(int) = {P512, P512, P512, P512};
__attribute__((constructor)) static void setup(void) { table[0] = b; }
int main(int c, char **v) { return table[c & 2047](c); }
