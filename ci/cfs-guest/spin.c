/* Seed 002's spinner, N processes of `usleep(500); for (i = 0; i < LOOPS; i++);`.
 * The launcher stays SCHED_OTHER, as a shell starting `chrt -i 0 ./idle_process` would,
 * and each child switches itself to SCHED_IDLE; it prints when all are forked. Build it
 * -O0, as the seed's plain `gcc idle_process.c` is: the empty loop must stay. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	long loops = argc > 2 ? atol(argv[2]) : 1000000;
	int made = 0;

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
	printf("=== spawned %d spinners\n", made);
	fflush(stdout);
	pause();
	return 0;
}
