#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# install-deps.sh: as root, the Debian 12 packages that make check and make demo run
# (.ci/run installs them with it, then runs make check); chromium and librsvg2-bin for
# the browser tier, which renders the pictures of `kvmchurn plot` (tests/browser). Nothing else of the host
# changes: kernels, chroots and QEMU 10 are downloaded into $KVMCHURN_CACHE by the tests.
set -euo pipefail

if ((EUID != 0)); then
	echo "install-deps.sh: installs Debian packages: run it as root (sudo $0)" >&2
	exit 2
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
	make gcc libc6-dev bc bison flex libelf-dev libssl-dev \
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross \
	sparse dwarves debootstrap mmdebstrap kmod cpio gzip xz-utils zstd squashfs-tools \
	qemu-system-x86 qemu-system-arm qemu-user-static busybox-static stress-ng \
	python3 ca-certificates systemd-container shellcheck \
	chromium libxml2-utils librsvg2-bin fonts-dejavu-core >/dev/null

# make check-prometheus runs its own Prometheus and node_exporter on free loopback ports.
# Installed, their packages would start and enable system-wide services (on :9090 and
# :9100): a policy-rc.d (which invoke-rc.d and deb-systemd-invoke obey) keeps them from
# starting, and those newly installed here are disabled (stopped too under systemd).
new=()
for p in prometheus prometheus-node-exporter; do
	[[ $(dpkg-query -W -f '${db:Status-Abbrev}' "$p" 2>/dev/null) == ii* ]] || new+=("$p")
done
if ((${#new[@]})); then
	own_policy=
	if [[ ! -e /usr/sbin/policy-rc.d ]]; then
		printf '#!/bin/sh\n# install-deps.sh: no service starts while it installs prometheus\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod 0755 /usr/sbin/policy-rc.d
		own_policy=1
	fi
	rc=0
	apt-get install -y -qq --no-install-recommends "${new[@]}" >/dev/null || rc=$?
	[[ -z $own_policy ]] || rm -f /usr/sbin/policy-rc.d
	((rc == 0)) || exit "$rc"
	for p in "${new[@]}"; do
		if [[ -d /run/systemd/system ]]; then
			systemctl disable --now "$p.service" >/dev/null 2>&1 || true
		else
			systemctl disable "$p.service" >/dev/null 2>&1 || true
		fi
	done
fi
