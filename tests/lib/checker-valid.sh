#!/bin/bash
# checker-valid.sh CHECK [CHECKFLAGS...]: print 1 if the checker CHECK is there and parses
# code using __typeof_unqual__, else 0. Kernels from 6.19 on run
# `$(srctree)/scripts/checker-valid.sh $(CHECK) $(CHECKFLAGS)` and turn C=1 off unless it
# prints 1; Debian's 7.x headers do not ship the script, so tests/lib/fetch.sh installs
# this one (kvmchurn's own, same contract) where it is missing.
snippet='static inline int u(const int *q) { __typeof_unqual__(*q) v = *q; return v; }'
# sparse exits 0 after a parse error, so its messages are what tells
if command -v -- "${1:-}" >/dev/null && out=$("$@" - <<<"$snippet" 2>&1) && [[ $out != *error* ]]; then
	echo 1
else
	echo 0
fi
