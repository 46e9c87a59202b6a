/* Exits at once with status 7. */
int main(void) { return 7; }
