/* The live lane's fixture: rea_entry calls rea_branch calls rea_leaf. */
#include <stdio.h>

int rea_c_global = 7;

__attribute__((noinline)) int rea_leaf(int x) {
    puts("REA_C_LEAF");
    return x + rea_c_global;
}

__attribute__((noinline)) int rea_branch(int x) {
    if (x > 3) {
        return rea_leaf(x);
    }
    return rea_leaf(-x);
}

__attribute__((noinline)) int rea_entry(int argc) {
    puts("REA_C_ENTRY");
    return rea_branch(argc);
}

int main(int argc, char **argv) {
    (void)argv;
    return rea_entry(argc);
}
