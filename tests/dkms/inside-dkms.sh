#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside a throwaway overlay of a release's chroot (tests/dkms/tier.sh), as root:
# DKMS from the working tree for one kernel whose headers are installed as packages.
#   inside-dkms.sh KREL [once]
# once: a single build (an emulated arm64 chroot, where a build takes minutes): add,
# build, install, status, signature, modprobe, remove; not autoinstall and make
# dkms-install, the same dkms and Makefile that the release's amd64 chroot takes through.
# /kvmchurn/src is the tree (what `make dkms-source` takes), /kvmchurn/out receives the
# module DKMS installed (plain .ko) and the logs. One TAP line a check.
# shellcheck disable=SC2015,SC2012 # ok/not_ok return 0, so A && ok || not_ok is if/else; ls of known names
set -u
krel=$1
once=${2:-}
src=/kvmchurn/src
out=/kvmchurn/out
ver=$(make -s --no-print-directory -C "$src" version)
# shellcheck source-path=SCRIPTDIR source=../lib/tap.sh
. /kvmchurn/src/tests/lib/tap.sh
# the state dkms status gives kvmchurn/VER on krel ("" when none). dkms 2.x writes
# "kvmchurn, VER, KREL, ARCH: state", 3.x "kvmchurn/VER, KREL, ARCH: state"; a version
# added but built for no kernel is "kvmchurn/VER: added" (2.x: "kvmchurn, VER: added").
state() {
	dkms status -m kvmchurn -v "$ver" 2>/dev/null | sed -n \
		-e "s#^kvmchurn[,/] *$ver, $krel, [^:]*: \([a-z]*\).*#\1#p" \
		-e "s#^kvmchurn[,/] *$ver: \([a-z]*\).*#\1#p"
}
is_state() { # is_state WANT WHEN
	local s
	s=$(state)
	if [[ $s == "$1" ]]; then ok "dkms status: $1 $2"; else not_ok "dkms status: '$s' $2, want '$1'"; fi
}
moddir=/lib/modules/$krel/updates/dkms
installed() { ls "$moddir"/kvmchurn.ko* 2>/dev/null | head -n1; }
# sig_of KO DIR: the signature appended to module KO (decompressed) into DIR/sig, and what
# it signs into DIR/content; false when KO is not signed. The tail of a signed module:
# the PKCS#7 signature, struct module_signature (12 bytes, the signature's length in the
# last 4, big-endian) and "~Module signature appended~\n".
sig_of() {
	local size len
	case $1 in
	*.xz) xz -dc "$1" ;;
	*.zst) zstd -qdc "$1" ;;
	*.gz) gzip -dc "$1" ;;
	*) cat "$1" ;;
	esac >"$2/ko"
	[[ $(tail -c 28 "$2/ko") == '~Module signature appended~' ]] || return 1
	size=$(stat -c %s "$2/ko")
	len=$(tail -c 32 "$2/ko" | head -c 4 | od -An -tu1 | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }')
	head -c $((size - 40 - len)) "$2/ko" >"$2/content"
	tail -c $((40 + len)) "$2/ko" | head -c "$len" >"$2/sig"
}
dkmsver=$(dpkg-query -W -f '${Version}' dkms)

echo "# dkms $dkmsver, kernel $krel, kvmchurn $ver"
: >"$out/dkms.log"
[[ -f /lib/modules/$krel/build/Makefile ]] && ok "headers of $krel installed as packages" ||
	not_ok "headers of $krel installed as packages"

# the sources where DKMS takes them, the way the kvmchurn-dkms package puts them
check "make dkms-source puts the sources in /usr/src/kvmchurn-$ver" make -C "$src" dkms-source
check "dkms add" dkms add -m kvmchurn -v "$ver"
is_state added "after add"
check "dkms build -k $krel" dkms build -m kvmchurn -v "$ver" -k "$krel"
is_state built "after build"
# 3.x keeps the log per kernel, 2.x in the build folder
log=$(ls /var/lib/dkms/kvmchurn/"$ver"/"$krel"/*/log/make.log /var/lib/dkms/kvmchurn/"$ver"/build/make.log 2>/dev/null | head -n1)
cp "$log" "$out/make.log" 2>/dev/null
# dkms logs only the output: the recipe line is there only if our Makefile ran
if grep -qx "make -C /lib/modules/$krel/build M=/var/lib/dkms/kvmchurn/$ver/build modules" "$log" 2>/dev/null; then
	ok "the build ran dkms.conf's MAKE (the Makefile's module target)"
else
	not_ok "the build ran dkms.conf's MAKE (the Makefile's module target)"
fi
# the kernel's build warnings are the build tier's business; none may be an error here
if grep -qE '(^|: )error:' "$log" 2>/dev/null; then not_ok "no error in make.log"; else ok "no error in make.log"; fi
check "dkms install -k $krel" dkms install -m kvmchurn -v "$ver" -k "$krel"
is_state installed "after install"
ko=$(installed)
if [[ -n $ko ]]; then ok "module installed as $ko"; else not_ok "module installed in $moddir"; fi
v=$(modinfo -F version "$ko" 2>/dev/null)
[[ $v == "$ver" ]] && ok "modinfo version $v" || not_ok "modinfo version '$v', want $ver"
vm=$(modinfo -F vermagic "$ko" 2>/dev/null)
[[ $vm == "$krel "* ]] && ok "vermagic is $krel's" || not_ok "vermagic '$vm' is not $krel's"
# Secure Boot (Documentation/secure-boot.rst): dkms 3 signs every module it builds, with
# its own key (/var/lib/dkms/mok.key, made at its first build, and its certificate
# mok.pub) and the kernel's CONFIG_MODULE_SIG_HASH; dkms 2.8 (bullseye) only through a
# sign_tool, which this chroot has none of
sig=$(mktemp -d)
if ! sig_of "$ko" "$sig"; then
	case $dkmsver in
	2.*) ok "dkms $dkmsver: the module is not signed (no sign_tool)" ;;
	*) not_ok "dkms $dkmsver: the module is not signed" ;;
	esac
elif [[ $dkmsver == 2.* ]]; then
	not_ok "dkms $dkmsver: the module is signed"
else
	openssl x509 -inform DER -in /var/lib/dkms/mok.pub -out "$sig/mok.pem" >>"$out/dkms.log" 2>&1
	if openssl cms -verify -binary -inform DER -in "$sig/sig" -content "$sig/content" \
		-certfile "$sig/mok.pem" -noverify -out /dev/null >>"$out/dkms.log" 2>&1; then
		ok "dkms $dkmsver: the module is signed with /var/lib/dkms/mok.key (its signature verifies with mok.pub)"
	else
		not_ok "dkms $dkmsver: the module's signature does not verify with /var/lib/dkms/mok.pub"
	fi
	want=$(sed -n 's/^CONFIG_MODULE_SIG_HASH="\(.*\)"/\1/p' "/lib/modules/$krel/build/.config")
	got=$(openssl asn1parse -inform DER -in "$sig/sig" 2>/dev/null | grep -m1 -oE ':sha[0-9]+' | tr -d :)
	[[ -n $want && $got == "$want" ]] && ok "dkms $dkmsver: signed with the kernel's hash, $got" ||
		not_ok "dkms $dkmsver: signed with '$got', the kernel's CONFIG_MODULE_SIG_HASH is '$want'"
fi
rm -rf "$sig"
if [[ ! -e /lib/modules/$krel/modules.dep ]]; then
	# headers without the kernel image: dkms 3.2+ leaves depmod to the image's install
	echo "# no modules.dep for $krel (its image is not installed): depmod run here"
	depmod -a "$krel"
fi
grep -q "^updates/dkms/kvmchurn.ko" "/lib/modules/$krel/modules.dep" &&
	ok "depmod: modules.dep lists it" || not_ok "depmod: modules.dep lists it"
# the modprobe.d example parses, and modprobe finds the DKMS module with those options
cp "$src/examples/modprobe.d/kvmchurn.conf" /etc/modprobe.d/kvmchurn.conf
want="insmod /lib/modules/$krel/${ko#/lib/modules/"$krel"/} filter=firecracker,cloud-hyperviso,qemu-system-x86 unit=us maxactive=512 pairs=4096"
got=$(modprobe -n -v -S "$krel" kvmchurn 2>&1 | sed 's/ *$//')
[[ $got == "$want" ]] && ok "modprobe uses the modprobe.d example" ||
	{ not_ok "modprobe uses the modprobe.d example"; echo "#   got:  $got"; echo "#   want: $want"; }
rm -f /etc/modprobe.d/kvmchurn.conf
case $ko in
*.xz) xz -dc "$ko" >"$out/kvmchurn.ko" ;;
*.zst) zstd -qdc "$ko" >"$out/kvmchurn.ko" ;;
*.gz) gzip -dc "$ko" >"$out/kvmchurn.ko" ;;
*) cp "$ko" "$out/kvmchurn.ko" ;;
esac
[[ -s $out/kvmchurn.ko ]] && ok "module handed to the vm tier" || not_ok "module handed to the vm tier"

check "dkms remove --all" dkms remove -m kvmchurn -v "$ver" --all
is_state "" "after remove"
[[ -z $(installed) ]] && ok "module file gone" || not_ok "module file gone: $(installed)"
grep -q kvmchurn "/lib/modules/$krel/modules.dep" && not_ok "modules.dep still lists it" ||
	ok "modules.dep no longer lists it"

if [[ $once == once ]]; then
	# what make dkms-source put there; the rest is the full run's
	rm -rf "/usr/src/kvmchurn-$ver"
else
	# AUTOINSTALL: what the kernel's postinst hook does for a new kernel
	check "dkms add again" dkms add -m kvmchurn -v "$ver"
	check "dkms autoinstall -k $krel (a new kernel's hook)" dkms autoinstall -k "$krel"
	is_state installed "after autoinstall"
	check "dkms remove --all" dkms remove -m kvmchurn -v "$ver" --all
	rm -rf "/usr/src/kvmchurn-$ver"

	# from a checkout
	check "make dkms-install KVER=$krel" make -C "$src" dkms-install KVER="$krel"
	is_state installed "after make dkms-install"
	check "make dkms-install again (replaces it)" make -C "$src" dkms-install KVER="$krel"
	is_state installed "after a second make dkms-install"
	check "make dkms-remove" make -C "$src" dkms-remove
	is_state "" "after make dkms-remove"
fi
[[ ! -e /usr/src/kvmchurn-$ver && -z $(installed) && ! -e /var/lib/dkms/kvmchurn/$ver ]] &&
	ok "nothing of kvmchurn left in /usr/src, /var/lib/dkms, $moddir" ||
	not_ok "nothing of kvmchurn left in /usr/src, /var/lib/dkms, $moddir"
tap_done
