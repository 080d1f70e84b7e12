#!/bin/sh
# 00-boot: is the guest what the scenarios after it expect? Loads nothing of kvmchurn.
# Also hands a small folder back to the host ($KVMCHURN_CACHE/out/<kernel>/boot/).

# shellcheck source=../lib/tap.sh
. /kvmchurn/tap.sh

t() { # t DESCRIPTION COMMAND...: one TAP line from a command's status
	d=$1
	shift
	if "$@" >/dev/null 2>&1; then ok "$d"; else not_ok "$d"; fi
}

echo "# $KVMCHURN_KERNEL ($KVMCHURN_ARCH): $(uname -r)"
t "/dev/kvm is a character device" test -c /dev/kvm
t "debugfs is mounted" grep -q ' /sys/kernel/debug debugfs ' /proc/mounts
t "kprobes are available" test -d /sys/kernel/debug/kprobes
t "KVMCHURN_KO is a file" test -f "$KVMCHURN_KO"
t "the client is on PATH" which kvmchurn
case $KVMCHURN_ARCH in
x86_64)
	t "uname -m is x86_64" test "$(uname -m)" = x86_64
	t "kvm_amd is loaded" grep -q '^kvm_amd ' /proc/modules
	;;
arm64)
	t "uname -m is aarch64" test "$(uname -m)" = aarch64
	t "KVM is built in" grep -q 'kvm' /proc/kallsyms
	;;
esac

mkdir -p /tmp/boot
uname -a >/tmp/boot/uname
cat /proc/cmdline >/tmp/boot/cmdline
cat /proc/modules >/tmp/boot/modules
# not through t(): its stdout is the serial log
if kvmchurn-put boot /tmp/boot; then ok "kvmchurn-put boot/"; else not_ok "kvmchurn-put boot/"; fi
