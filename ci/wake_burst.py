#!/usr/bin/env python3
"""The largest burst of wake-ups one CPU issues for one command's tasks: how many, over
how long, and the median gap between consecutive ones (docs/validate.md, "One write, many
wake-ups"). Reads a text trace: `perf script` of `perf record -e sched:sched_wakeup -a`
on the host, or `schedlab run ... --trace F.txt --trace-events sched_wakeup`.

    ci/wake_burst.py TRACE.txt [COMM] [MIN_TASKS]

COMM (default hackbench) is the wakees' command name; a burst is at least MIN_TASKS
(default 150) wake-ups issued from one CPU within 2 ms of its first.
"""
import re
import sys

WAKEUP = re.compile(
    r"\[(\d+)\].*?\s(\d+\.\d+):\s+(?:sched:)?sched_wakeup:\s+comm=(\S+) pid=(\d+)"
)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    path = sys.argv[1]
    comm = sys.argv[2] if len(sys.argv) > 2 else "hackbench"
    least = int(sys.argv[3]) if len(sys.argv) > 3 else 150
    wakes = []
    with open(path) as f:
        for line in f:
            m = WAKEUP.search(line)
            if m and m.group(3).startswith(comm):
                wakes.append((float(m.group(2)), int(m.group(1))))
    for i, (t0, cpu) in enumerate(wakes):
        burst = [t for t, c in wakes[i:] if c == cpu and t - t0 < 0.002]
        if len(burst) >= least:
            gaps = sorted(b - a for a, b in zip(burst, burst[1:]))
            print(
                f"{path}: {len(burst)} wake-ups from CPU {cpu} over "
                f"{(burst[-1] - burst[0]) * 1e6:.0f} us, median gap "
                f"{gaps[len(gaps) // 2] * 1e6:.2f} us"
            )
            return
    print(f"{path}: no burst of {least} wake-ups within 2 ms")
    sys.exit(1)


if __name__ == "__main__":
    main()
