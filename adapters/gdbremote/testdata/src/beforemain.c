/* A constructor calls target twice before main; main calls it three times. */
__attribute__((noinline)) int target(int n) {
	__asm__ volatile("" ::: "memory");
	return n * 2;
}

__attribute__((constructor)) static void early(void) {
	target(100);
	target(101);
}

int main(void) {
	int s = 0;
	for (int i = 0; i < 3; i++)
		s += target(i);
	return s == 6 ? 0 : 1;
}
