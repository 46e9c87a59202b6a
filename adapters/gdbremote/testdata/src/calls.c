/* Calls target() with known arguments, and a recursive function. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long target(long a, long b, long c) {
	__asm__ volatile("" ::: "memory");
	return a * 100 + b * 10 + c;
}

__attribute__((noinline)) long fact(long n) {
	if (n <= 1)
		return 1;
	return n * fact(n - 1);
}

int main(int argc, char **argv) {
	long sum = 0;
	for (long i = 1; i <= 5; i++)
		sum += target(i, i + 1, i + 2);
	sum += fact(5);
	printf("%ld\n", sum);
	return argc > 1 ? atoi(argv[1]) : 0;
}
