/* A function reached only through a table of pointers in .data. */
int add(int a, int b) { return a + b; }
int sub(int a, int b) { return a - b; }
int (*ops[])(int, int) = {add, sub};
int main(int c, char **v) { return ops[c & 1](c, 2); }
