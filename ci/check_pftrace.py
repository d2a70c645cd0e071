#!/usr/bin/env python3
"""Decode a schedlab Perfetto trace with Perfetto's own protobuf schema (the descriptors
shipped in the `perfetto` PyPI package) and check it against the run's JSON result:
event counts per task, per-task CPU time rebuilt from sched_switch to the nanosecond, the
declared kernel release, the process tree's names.

Usage: ci/check_pftrace.py [path/to/schedlab]   (default target/release/schedlab)
Skips (exit 0, with a message) when the `perfetto` or `protobuf` package is missing.
If a trace_processor_shell binary is available (TRACE_PROCESSOR_SHELL or on PATH), the
trace is also loaded into trace processor and its `sched` table checked the same way.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict

try:
    from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb
except ImportError as e:  # pragma: no cover - depends on the machine
    print(f"check_pftrace: SKIP: the perfetto/protobuf Python packages are not installed ({e}); "
          "pip install perfetto protobuf")
    sys.exit(0)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RTAPP = {
    "global": {"duration": 3, "default_policy": "SCHED_OTHER"},
    "tasks": {
        "periodic": {"instance": 6, "run": 3000,
                     "timer": {"ref": "unique", "period": 10000, "mode": "absolute"}},
        "hog": {"instance": 2, "run": 1000000},
    },
}
STATE = {0: "R", 1: "S", 2: "D", 0x20: "Z", 0x100: "R+"}


def fail(msg):
    print(f"check_pftrace: FAIL: {msg}")
    sys.exit(1)


def run_schedlab(binary, workdir):
    wl = os.path.join(workdir, "eight.json")
    with open(wl, "w") as f:
        json.dump(RTAPP, f)
    trace = os.path.join(workdir, "eight.pftrace")
    result = os.path.join(workdir, "eight.json.out")
    cmd = [binary, "run", "-q", "-m", "smp:4", "-t", "3s", "-w", f"rtapp {wl}",
           "--trace", trace, "--trace-counters", "all", "--json", result]
    subprocess.run(cmd, check=True)
    with open(result) as f:
        return trace, json.load(f)


def decode(path):
    t = pb.Trace()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return t


def check_proto(trace, res):
    end = res["sim"]["time_ns"]
    counts = Counter()
    per_pid = defaultdict(Counter)
    running = {}  # cpu -> (pid, since)
    cpu_time = Counter()
    last_ts = defaultdict(int)
    release = None
    names = {}
    counter_tracks = 0
    switches = []
    for p in trace.packet:
        if p.HasField("system_info"):
            release = p.system_info.utsname.release
        if p.HasField("process_tree"):
            for th in p.process_tree.threads:
                names[th.tid] = th.name
        if p.HasField("track_descriptor") and p.track_descriptor.HasField("counter"):
            counter_tracks += 1
        if not p.HasField("ftrace_events"):
            continue
        cpu = p.ftrace_events.cpu
        for ev in p.ftrace_events.event:
            kind = ev.WhichOneof("event")
            counts[kind] += 1
            if ev.timestamp < last_ts[cpu]:
                fail(f"time went backwards on CPU {cpu}")
            last_ts[cpu] = ev.timestamp
            if kind == "sched_switch":
                switches.append((ev.timestamp, cpu, ev.sched_switch))
            elif kind == "sched_migrate_task":
                per_pid[ev.sched_migrate_task.pid]["migrations"] += 1
            elif kind == "sched_process_exit":
                per_pid[ev.sched_process_exit.pid]["exits"] += 1
    switches.sort(key=lambda s: s[0])  # stable: per-CPU order kept for equal times
    for ts, cpu, sw in switches:
        pid, since = running.get(cpu, (0, 0))
        if sw.prev_pid != pid:
            fail(f"CPU {cpu} at {ts}: prev_pid {sw.prev_pid} but {pid} was running")
        if pid:
            cpu_time[pid] += ts - since
            per_pid[pid]["switches"] += 1
        if sw.prev_state not in STATE:
            fail(f"unexpected prev_state {sw.prev_state:#x}")
        running[cpu] = (sw.next_pid, ts)
    for pid, since in running.values():
        if pid:
            cpu_time[pid] += end - since
    if not release or not release[0].isdigit():
        fail(f"no usable utsname.release ({release!r})")
    for t in res["tasks"]:
        pid = t["pid"]
        if cpu_time[pid] != t["cpu_time_ns"]:
            fail(f"{t['comm']}: CPU time {cpu_time[pid]} from the trace, {t['cpu_time_ns']} in the JSON")
        if per_pid[pid]["switches"] != t["nr_switches"]:
            fail(f"{t['comm']}: {per_pid[pid]['switches']} switches traced, {t['nr_switches']} in the JSON")
        if per_pid[pid]["migrations"] != t["nr_migrations"]:
            fail(f"{t['comm']}: migrations differ")
        if per_pid[pid]["exits"] != int(t["exited"]):
            fail(f"{t['comm']}: exit events differ")
        if names.get(pid) != t["comm"].replace(" ", "_")[:15]:
            fail(f"{t['comm']}: process tree name {names.get(pid)!r}")
    if counter_tracks == 0:
        fail("no counter tracks although --trace-counters all was given")
    print(f"check_pftrace: protobuf OK: {sum(counts.values())} events "
          f"({', '.join(f'{k} {v}' for k, v in sorted(counts.items()))}), "
          f"{counter_tracks} counter tracks, kernel {release}")


def check_trace_processor(path, res):
    shell = os.environ.get("TRACE_PROCESSOR_SHELL") or shutil.which("trace_processor_shell")
    if not shell:
        print("check_pftrace: trace processor not checked: no trace_processor_shell binary "
              "(the perfetto package downloads it at run time, which needs network access; "
              "set TRACE_PROCESSOR_SHELL to a local copy)")
        return
    from perfetto.trace_processor import TraceProcessor, TraceProcessorConfig
    tp = TraceProcessor(trace=path, config=TraceProcessorConfig(bin_path=shell))
    rows = tp.query("select t.tid as tid, sum(s.dur) as dur from sched s join thread t "
                    "using(utid) where t.tid != 0 group by t.tid")
    got = {r.tid: r.dur for r in rows}
    for t in res["tasks"]:
        # The last slice of a task still running ends at the trace's last event, not at
        # the run's end: allow that tail.
        if got.get(t["pid"], 0) > t["cpu_time_ns"]:
            fail(f"trace processor: {t['comm']} ran {got.get(t['pid'])} > {t['cpu_time_ns']}")
    tp.close()
    print("check_pftrace: trace processor OK")


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target/release/schedlab")
    if not os.path.exists(binary):
        fail(f"{binary} not found; build with cargo build --release")
    with tempfile.TemporaryDirectory() as d:
        path, res = run_schedlab(binary, d)
        check_proto(decode(path), res)
        check_trace_processor(path, res)


if __name__ == "__main__":
    main()
