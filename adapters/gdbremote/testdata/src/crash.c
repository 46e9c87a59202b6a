/* lookup reads table[i]; the second call passes a null table and the
   program dies of SIGSEGV inside it. */
#include <stdlib.h>

__attribute__((noinline)) int lookup(int *table, int i) { return table[i]; }

int main(int argc, char **argv) {
  int table[4] = {1, 2, 3, 4};
  int i = argc > 1 ? atoi(argv[1]) : 1;
  int v = lookup(table, i);
  return lookup(v > 0 ? NULL : table, i);
}
