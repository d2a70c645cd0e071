/* Pipe ping-pong between two processes, both on CPU A or on CPUs A and B: the round
 * trip of a write, a wake-up and a context switch in the guest, to set a machine
 * file's costs for the simulator (docs/validate.md, A CFS kernel). */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static void pin(int cpu)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	sched_setaffinity(0, sizeof(s), &s);
}

int main(int argc, char **argv)
{
	int a = argc > 1 ? atoi(argv[1]) : 0, b = argc > 2 ? atoi(argv[2]) : 0;
	long n = argc > 3 ? atol(argv[3]) : 20000;
	int up[2], down[2];
	char c = 0;
	struct timespec t0, t1;

	if (pipe(up) || pipe(down))
		return 1;
	if (fork() == 0) {
		pin(b);
		for (long i = 0; i < n; i++) {
			if (read(down[0], &c, 1) != 1 || write(up[1], &c, 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	pin(a);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n; i++) {
		if (write(down[1], &c, 1) != 1 || read(up[0], &c, 1) != 1)
			return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double ns = (t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec);
	printf("=== pingpong cpus %d,%d: %.0f ns per round trip\n", a, b, ns / n);
	return 0;
}
