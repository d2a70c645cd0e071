/* Seed 002's spinner, N processes of `usleep(500); for (i = 0; i < LOOPS; i++);`.
 * The launcher stays SCHED_OTHER, as a shell starting `chrt -i 0 ./idle_process` would,
 * and each child switches itself to SCHED_IDLE; when all are forked it prints how long
 * that took and creates /tmp/spawned (init.sh waits for it). Build it -O0, as the seed's
 * plain `gcc idle_process.c` is: the empty loop must stay. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	long loops = argc > 2 ? atol(argv[2]) : 1000000;
	int made = 0;
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);

	for (int k = 0; k < n; k++) {
		pid_t pid = fork();
		if (pid == 0) {
			struct sched_param sp = { 0 };
			if (sched_setscheduler(0, SCHED_IDLE, &sp)) {
				perror("sched_setscheduler");
				_exit(1);
			}
			int i = 0;
			for (;;) {
				usleep(500);
				for (i = 0; i < loops; i++)
					;
			}
		}
		if (pid > 0)
			made++;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("=== spawned %d spinners in %ld ms\n", made,
	       (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000);
	fflush(stdout);
	close(open("/tmp/spawned", O_CREAT | O_WRONLY, 0644));
	pause();
	return 0;
}
