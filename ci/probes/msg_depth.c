/* The CPU cost of a small write and read on AF_UNIX stream sockets or pipes with many
 * messages in flight, on one CPU (docs/validate.md, "Message cost and messages in flight").
 * Each round writes DEPTH 100-byte messages to each of N channels, then reads them all
 * back; the first round warms up and is not counted.
 *   cc -O2 -o msg_depth ci/probes/msg_depth.c && taskset -c 0 ./msg_depth DEPTH N [pipe]
 * ROUNDS=K in the environment sets the counted rounds (default 200000 / (DEPTH * N), at
 * least 5), so loops of different depths can be timed back to back on a drifting guest.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s DEPTH CHANNELS [pipe]\n", argv[0]);
		return 2;
	}
	int depth = atoi(argv[1]), n = atoi(argv[2]), pipes = argc > 3 && !strcmp(argv[3], "pipe");
	if (depth < 1 || n < 1 || n > 512) {
		fprintf(stderr, "DEPTH >= 1, 1 <= CHANNELS <= 512\n");
		return 2;
	}
	int (*fds)[2] = calloc(n, sizeof *fds);
	char buf[100] = { 0 };
	for (int i = 0; i < n; i++) {
		int rc = pipes ? pipe(fds[i]) : socketpair(AF_UNIX, SOCK_STREAM, 0, fds[i]);
		if (rc) {
			perror("pipe/socketpair");
			return 1;
		}
	}
	int rounds = 200000 / (depth * n);
	if (rounds < 5)
		rounds = 5;
	if (getenv("ROUNDS") && atoi(getenv("ROUNDS")) > 0)
		rounds = atoi(getenv("ROUNDS"));
	double w = 0, r = 0;
	long msgs = 0;
	for (int k = 0; k < rounds; k++) {
		double a = now_ns();
		for (int d = 0; d < depth; d++)
			for (int i = 0; i < n; i++)
				if (write(fds[i][1], buf, sizeof buf) != sizeof buf)
					return 1;
		double b = now_ns();
		for (int i = 0; i < n; i++)
			for (int d = 0; d < depth; d++)
				if (read(fds[i][0], buf, sizeof buf) != sizeof buf)
					return 1;
		double c = now_ns();
		if (k > 0) {
			w += b - a;
			r += c - b;
			msgs += (long)depth * n;
		}
	}
	printf("%s depth %d x %d channels (%ld in flight): write %.0f ns, read %.0f ns\n",
	       pipes ? "pipe" : "socket", depth, n, (long)depth * n, w / msgs, r / msgs);
	return 0;
}
