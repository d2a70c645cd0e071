#!/bin/sh
# Run an experiment on a CFS kernel in a QEMU guest (docs/validate.md, A CFS kernel).
#
#   ci/cfs-guest/run.sh KERNEL SCHBENCH_SRC CPUS ARGS...
#
# KERNEL: a bzImage/vmlinuz with virtio-free serial console support built in (Debian's
# linux-image-6.1.0-*-cloud-amd64, or one built from linux-source-6.1 with the seed's
# patch); SCHBENCH_SRC: a checkout of masoncl/schbench at 2eef447 (Dec 2021, the one
# seed 002 ran); ARGS: the experiment's NAME=VALUE settings, exp=... first (init.sh).
# The guest prints to stdout; lines starting with === are this harness's.
#
# SCHEDLAB=target/release/schedlab adds the simulator binary (exp=calibrate uses it).
#
# Needs qemu-system-x86, busybox-static, cpio, gcc (apt-get install qemu-system-x86
# busybox-static cpio gcc). Uses KVM when it can run the kernel, else TCG (QEMU_ACCEL=tcg
# forces it; on this repository's hosts KVM is the PVM flavour, which cannot boot a stock
# kernel, so TCG it is: every CPU emulated, about 5x slower than the host).
set -eu
[ $# -ge 3 ] || { echo "usage: $0 KERNEL SCHBENCH_SRC CPUS exp=NAME [NAME=VALUE...]" >&2; exit 2; }
kernel=$1 sbsrc=$2 cpus=$3
shift 3
[ -f "$kernel" ] || { echo "$0: kernel image '$kernel' not found" >&2; exit 2; }
[ -f "$sbsrc/schbench.c" ] || { echo "$0: no schbench.c in '$sbsrc' (a masoncl/schbench checkout at 2eef447)" >&2; exit 2; }
for tool in qemu-system-x86_64 cpio gcc; do
	command -v "$tool" >/dev/null || { echo "$0: '$tool' not found (apt-get install qemu-system-x86 busybox-static cpio gcc)" >&2; exit 2; }
done
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
trap 'rm -rf "$work"; exit 130' INT TERM
root=$work/root
mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev" "$root/tmp"
cp /bin/busybox "$root/bin/"
for a in sh mount echo cat sleep setsid kill poweroff uname nproc sync head tr grep pidof basename cut sed; do
	ln -s busybox "$root/bin/$a"
done
gcc -O2 -static -D_GNU_SOURCE -o "$root/bin/schbench" "$sbsrc/schbench.c" -lpthread -lm
for p in spin loopcost pingpong; do
	gcc -O0 -static -o "$root/bin/$p" "$here/$p.c"
done
# With SCHEDLAB=path, the schedlab binary and the shared libraries it loads, so that
# exp=calibrate can run `schedlab machines capture --calibrate` inside the guest.
if [ -n "${SCHEDLAB:-}" ]; then
	cp "$SCHEDLAB" "$root/bin/schedlab"
	for lib in $(ldd "$SCHEDLAB" | grep -o '/[^ ]*'); do
		mkdir -p "$root$(dirname "$lib")"
		cp "$lib" "$root$lib"
	done
fi
cp "$here/init.sh" "$root/init"
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc 2>/dev/null | gzip -1) > "$work/initrd.gz"
accel=${QEMU_ACCEL:-tcg}
cpu=max
[ "$accel" = kvm ] && cpu=host
# The serial console on stdio with signal=on: Ctrl-C ends QEMU (and the guest with it);
# the trap removes the initramfs. A guest that hangs is stopped after GUEST_TIMEOUT s.
timeout "${GUEST_TIMEOUT:-600}" qemu-system-x86_64 -accel "$accel" -cpu "$cpu" -m 4096 \
	-smp "$cpus,sockets=1,cores=$cpus,threads=1" \
	-kernel "$kernel" -initrd "$work/initrd.gz" -no-reboot -display none -monitor none \
	-chardev stdio,id=con,signal=on -serial chardev:con \
	-append "console=ttyS0 quiet loglevel=3 $*" </dev/null
