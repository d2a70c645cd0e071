/* The cost of one pass of the spinner's empty loop in this guest, -O0 as spin.c. */
#include <stdio.h>
#include <time.h>

int main(void)
{
	for (int r = 0; r < 5; r++) {
		struct timespec a, b;
		clock_gettime(CLOCK_MONOTONIC, &a);
		int i = 0;
		for (i = 0; i < 1000000; i++)
			;
		clock_gettime(CLOCK_MONOTONIC, &b);
		double ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
		printf("=== loop %.0f ps per pass\n", ns / 1e6 * 1000);
	}
	return 0;
}
