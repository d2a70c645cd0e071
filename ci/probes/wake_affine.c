// Wake-affine probe (docs/validate.md, "Where a woken task goes"): a worker pinned to
// CPU 0 and a waker pinned to CPU 1 each loop `spin W µs; usleep S µs`, the waker
// futex-waking an unpinned wakee after its spin; the wakee only counts the CPU it
// wakes on. Mainline's wake_affine_weight compares the two CPUs' loads, so the wakee
// should follow the waker to CPU 1 whatever S is. Usage: wake_affine W S_WAKER S_OTHER SECS
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static atomic_int word;
static volatile int stop;
static long work_us, sleep_waker_us, sleep_other_us;
static long on_cpu[2];

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static void pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static void spin(long us)
{
	double end = now() + us * 1e-6;
	while (now() < end)
		;
}

static void *other(void *arg)
{
	(void)arg;
	pin(0);
	while (!stop) {
		spin(work_us);
		if (sleep_other_us)
			usleep(sleep_other_us);
	}
	return NULL;
}

static void *waker(void *arg)
{
	(void)arg;
	pin(1);
	while (!stop) {
		spin(work_us);
		atomic_store(&word, 1);
		syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		if (sleep_waker_us)
			usleep(sleep_waker_us);
	}
	return NULL;
}

static void *wakee(void *arg)
{
	(void)arg;
	while (!stop) {
		while (atomic_exchange(&word, 0) == 0 && !stop)
			syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
		int cpu = sched_getcpu();
		if (cpu == 0 || cpu == 1)
			on_cpu[cpu]++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: %s WORK_US SLEEP_WAKER_US SLEEP_OTHER_US SECONDS\n", argv[0]);
		return 2;
	}
	work_us = atol(argv[1]);
	sleep_waker_us = atol(argv[2]);
	sleep_other_us = atol(argv[3]);
	pthread_t t[3];
	pthread_create(&t[0], NULL, wakee, NULL);
	pthread_create(&t[1], NULL, other, NULL);
	pthread_create(&t[2], NULL, waker, NULL);
	sleep(atoi(argv[4]));
	stop = 1;
	atomic_store(&word, 1);
	syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("%ld %ld\n", on_cpu[0], on_cpu[1]);
	return 0;
}
