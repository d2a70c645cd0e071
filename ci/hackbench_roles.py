#!/usr/bin/env python3
"""hackbench's context switches per 100 ms by role (docs/validate.md, "One write, many
wake-ups"): how often receivers (r) and senders (s) were switched out asleep (S) or
preempted (R). Reads a text trace with sched_switch: `perf script` of `perf record -e
sched:sched_switch -a -- hackbench …` on the host, or `schedlab run … --trace F.txt
--trace-events sched_switch`.

    ci/hackbench_roles.py TRACE.txt GROUPS FDS

Roles follow creation order, as rt-tests' group() makes them: the lowest hackbench pid
is main, then per group FDS receivers and FDS senders (threaded mode: thread ids are
handed out in that order).
"""
import collections
import re
import sys

SWITCH = re.compile(
    r"\s(\d+\.\d+):\s+(?:sched:)?sched_switch:\s+prev_comm=(\S+) prev_pid=(\d+) "
    r"prev_prio=\d+ prev_state=(\S+) ==> next_comm=(\S+) next_pid=(\d+)"
)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    path, groups, fds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    switches, pids = [], set()
    with open(path) as f:
        for line in f:
            m = SWITCH.search(line)
            if not m:
                continue
            t, prev_comm, prev, state, next_comm, nxt = m.groups()
            switches.append((float(t), int(prev), state[0]))
            if prev_comm.startswith("hackbench"):
                pids.add(int(prev))
            if next_comm.startswith("hackbench"):
                pids.add(int(nxt))
    workers = sorted(pids)[1:]
    if len(workers) < groups * 2 * fds:
        sys.exit(f"{path}: {len(workers)} hackbench workers, expected {groups * 2 * fds}")
    role = {p: "r" if i % (2 * fds) < fds else "s" for i, p in enumerate(workers)}
    t0 = switches[0][0]
    counts = collections.Counter()
    for t, p, state in switches:
        if p in role:
            counts[(int((t - t0) / 0.1), role[p] + state)] += 1
    for w in range(max(k[0] for k in counts) + 1):
        cells = " ".join(f"{k} {counts[(w, k)]:6d}" for k in ("rS", "rR", "sS", "sR"))
        print(f"{w / 10:.1f} s  {cells}")


if __name__ == "__main__":
    main()
