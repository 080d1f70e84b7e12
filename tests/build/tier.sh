#!/usr/bin/env bash
# tier.sh [ID...]: the build tier (make check-build). kvmchurn.ko, make bench's floor
# module and, on the debug kernel, the KUnit suites, built against each kernel of the
# matrix with W=1 C=1: a kernel fails on any compiler, sparse or modpost warning, if a
# kernel without kretprobes, or debugfs and procfs, does not refuse it, or if one without
# debugfs does not build it (the core's lib/compile.sh, which the debug tier runs too). Ids: arguments, else KERNELS, else the matrix.
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/../lib/compile.sh" "$@"
