#!/usr/bin/env bash
# Seed 002's experiment, scaled to this host, on the real kernel: the 2021 schbench
# (masoncl/schbench at 2eef447, which `validate` cannot run: it is not packaged) beside
# N copies of the thread's idle_process.c as SCHED_IDLE tasks, all in one session (one
# autogroup), or with SESSIONS=2 the spinners in a session of their own (setsid: a second
# autogroup, as when they are started from another shell). Prints schbench's output and the per-thread schedstats 1 s before its end,
# then the same scenario in schedlab (docs/validate.md, "schbench 2021 with SCHED_IDLE
# spinners"). Every spinner is killed on exit, Ctrl-C included.
#   ci/host_schbench2021.sh SCHBENCH_2021_BINARY [SPINNERS] [SCHBENCH ARGS…]
#   ci/host_schbench2021.sh /tmp/sb21/schbench 1250 -m 1 -t 3 -r 30 -R 50
#   SESSIONS=2 ci/host_schbench2021.sh /tmp/sb21/schbench 1250
set -euo pipefail
sb=$(realpath "$1"); n=${2:-1250}; shift 2 || shift $#
args=("$@"); [ ${#args[@]} -gt 0 ] || args=(-m 1 -t 3 -r 30 -R 50)
work=$(mktemp -d /tmp/host-schbench2021.XXXXXX)
pids=()
group=""
cleanup() {
  # No errexit here: a pid that already exited must not stop the rest of the clean-up.
  set +e
  [ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null
  [ -n "$group" ] && kill -- "-$group" 2>/dev/null
  wait 2>/dev/null; rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# The thread's spinner, compiled as the thread did (no flags: gcc -O0 keeps the loop).
printf 'int main(){int i=0;while(1){usleep(500);for(i=0;i<1000000;i++);}}\n' > "$work/idle.c"
gcc -O0 -include unistd.h -o "$work/idle" "$work/idle.c"
if [ "${SESSIONS:-1}" = 2 ]; then
  # One new session (and process group) holding every spinner; killed as a group.
  setsid bash -c 'for _ in $(seq "$1"); do chrt -i 0 "$2" & done; wait' _ "$n" "$work/idle" &
  group=$!
  sleep 1
  echo "spinners' autogroup: $(cat /proc/$group/autogroup 2>/dev/null); this shell's: $(cat /proc/$$/autogroup)"
else
  for _ in $(seq "$n"); do chrt -i 0 "$work/idle" & pids+=($!); done
fi
sleep 2
runtime=30
for ((i = 0; i < ${#args[@]}; i++)); do [ "${args[$i]}" = -r ] && runtime=${args[$((i + 1))]}; done
"$sb" "${args[@]}" > "$work/out" 2>&1 &
tool=$!; pids+=("$tool")
sleep $((runtime - 1))
for t in /proc/$tool/task/*; do
  awk -v c="$(cat "$t/comm")" '/se.sum_exec_runtime|nr_voluntary|nr_involuntary|se.nr_migrations /{printf "%s %s %s\n", c, $1, $3}' "$t/sched"
done > "$work/sched" 2>/dev/null || true
wait "$tool" || true
cat "$work/out"
echo "--- per-thread schedstats at $((runtime - 1)) s (comm field value; runtime in ms)"
cat "$work/sched"
