#!/bin/sh
# /init of the guest's initramfs (run.sh): report the kernel's scheduler settings, run the
# experiment named by exp= on the kernel command line, power off. Every other NAME=VALUE
# on that line reaches this script as an environment variable (the kernel passes them).
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t debugfs nodev /sys/kernel/debug
echo "=== kernel $(uname -r), $(nproc) CPUs"
echo "=== features $(cat /sys/kernel/debug/sched/features)"
echo "=== preempt $(cat /sys/kernel/debug/sched/preempt 2>/dev/null)"
echo "=== latency_ns $(cat /sys/kernel/debug/sched/latency_ns) min_granularity_ns $(cat /sys/kernel/debug/sched/min_granularity_ns) wakeup_granularity_ns $(cat /sys/kernel/debug/sched/wakeup_granularity_ns)"
# Wait times in /proc/PID/sched need schedstats.
echo 1 > /proc/sys/kernel/sched_schedstats
[ -n "$AUTOGROUP" ] && echo "$AUTOGROUP" > /proc/sys/kernel/sched_autogroup_enabled
echo "=== autogroup $(cat /proc/sys/kernel/sched_autogroup_enabled)"
if [ -n "$PRIO_LB" ]; then
	if [ -f /sys/kernel/debug/sched/prio_load_balance_enabled ]; then
		echo "$PRIO_LB" > /sys/kernel/debug/sched/prio_load_balance_enabled
		echo "=== prio_load_balance_enabled $(cat /sys/kernel/debug/sched/prio_load_balance_enabled)"
	else
		echo "=== error: PRIO_LB set but this kernel has no prio_load_balance_enabled knob"
	fi
fi
[ -n "$FEATURES" ] && for f in $(echo "$FEATURES" | tr , ' '); do echo "$f" > /sys/kernel/debug/sched/features; done
[ -n "$FEATURES" ] && echo "=== features now $(cat /sys/kernel/debug/sched/features)"
case "$exp" in
calibrate)
	for d in /sys/kernel/debug/sched/domains/cpu0/domain*; do
		[ -d "$d" ] && echo "=== cpu0 $(basename "$d") $(cat "$d/name") flags $(cat "$d/flags")"
	done
	/bin/loopcost
	/bin/pingpong 0 0 20000
	/bin/pingpong 0 1 20000
	if [ -x /bin/schedlab ]; then
		echo "=== schedlab machines capture --calibrate"
		/bin/schedlab machines capture --calibrate
	fi
	;;
prio-lb)
	# Seed 002's experiment, sized by SPINNERS, LOOPS, THREADS and RPS: the spinners
	# from one session, schbench (the 2021 binary) from another, as from two shells.
	/bin/loopcost | head -2
	setsid /bin/spin "$SPINNERS" "$LOOPS" &
	# Until every spinner is forked (in this emulator the fork storm itself takes
	# seconds, and children not yet run still weigh as nice-0 tasks), then the lead-in.
	while [ ! -e /tmp/spawned ]; do sleep 1; done
	run=${RUNTIME:-30}
	# The side shells fork here, 3 s before schbench, so that their new-task load (a
	# forked task starts at its full weight) has decayed when schbench's threads are
	# placed: the fork placement then sees the spinners and schbench only.
	# SCHED_DEBUG_AT=S: the per-CPU cfs_rq summary of /sys/kernel/debug/sched/debug S
	# seconds into schbench (each autogroup's runnable count, load and entity weight).
	if [ -n "$SCHED_DEBUG_AT" ]; then
		(
			sleep $((SCHED_DEBUG_AT + 3))
			grep -E "^cpu#|^cfs_rq|\.nr_running|\.h_nr_running|\.load |\.load_avg|\.tg_load_avg |\.se->load.weight|\.se->avg.load_avg" \
				/sys/kernel/debug/sched/debug | sed 's/^/=== debug /'
		) &
	fi
	# Six seconds before the end (the dump itself waits for a CPU among the spinners),
	# each schbench thread's /proc/PID/task/TID/sched: its CPU time, waits, switches and
	# migrations (CONFIG_SCHED_DEBUG).
	(
		sleep $((run - 3))
		for t in /proc/$(pidof schbench)/task/*; do
			# Field 39 of stat: the CPU the thread last ran on.
			echo "=== thread $(basename "$t") comm $(cat "$t/comm") cpu $(cut -d' ' -f39 "$t/stat")"
			grep -E "se.sum_exec_runtime|sum_sleep_runtime|wait_sum|wait_max|nr_migrations |nr_switches|nr_voluntary|nr_involuntary" "$t/sched"
		done
	) &
	# TRACE=1: where schbench's threads are forked and moved (sched_wakeup_new and
	# sched_migrate_task of its threads), printed after the run; TRACE=2 adds every
	# switch to or from a schbench thread in the run's first TRACE_SECS (default 2) s.
	if [ -n "$TRACE" ]; then
		mount -t tracefs nodev /sys/kernel/tracing
		tr=/sys/kernel/tracing
		echo 8192 > $tr/buffer_size_kb
		for e in sched_wakeup_new sched_migrate_task; do
			echo 'comm ~ "schbench*"' > $tr/events/sched/$e/filter
			echo 1 > $tr/events/sched/$e/enable
		done
		if [ "$TRACE" = 2 ]; then
			echo 'prev_comm ~ "schbench*" || next_comm ~ "schbench*"' > $tr/events/sched/sched_switch/filter
			echo 1 > $tr/events/sched/sched_switch/enable
			echo 'comm ~ "schbench*"' > $tr/events/sched/sched_wakeup/filter
			echo 1 > $tr/events/sched/sched_wakeup/enable
			(
				sleep $((${TRACE_SECS:-2} + 3))
				echo 0 > $tr/events/sched/sched_switch/enable
				echo 0 > $tr/events/sched/sched_wakeup/enable
			) &
		fi
		echo 1 > $tr/tracing_on
	fi
	# TRACE_SPINNERS=1: the spinners' migrations during the lead-in's last second
	# (sched_migrate_task of comm spin), printed after the run.
	if [ -n "$TRACE_SPINNERS" ]; then
		[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing
		sm=/sys/kernel/tracing/events/sched/sched_migrate_task
		sleep 2
		echo 'comm == "spin" || comm ~ "schbench*"' > $sm/filter
		echo 1 > $sm/enable
		echo 1 > /sys/kernel/tracing/tracing_on
		sleep 1
		TRACE=${TRACE:-1}
	else
		sleep 3
	fi
	setsid /bin/schbench -m 1 -t "$THREADS" -r "${RUNTIME:-30}" -R "$RPS" 2>&1
	[ -n "$TRACE" ] && grep -v '^#' /sys/kernel/tracing/trace | head -20000 | sed 's/^/=== trace /'
	kill -9 -1
	;;
*)
	echo "=== error: unknown experiment '$exp'"
	;;
esac
echo "=== done"
sync
poweroff -f
