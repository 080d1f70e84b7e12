# SPDX-License-Identifier: GPL-2.0
# count/kosyms.awk: the functions of a module file, "MODULE SECTION OFFSET NAME", and
# where each of its text sections ends, "MODULE SECTION SIZE [end]", from
# `readelf -SW KO; readelf -sW KO` (-v mod=MODULE, e.g. [kvmchurn]): what count/syms.awk
# reads first (tests/bench/bench.sh count).
/^ *\[ *[0-9]+\] / {
	gsub(/[][]/, " "); sec[$1] = $2
	if ($2 ~ /^\.text/) print mod, $2, $6, "[end]"
	next
}
$4 == "FUNC" && $7 ~ /^[0-9]+$/ { print mod, sec[$7], $2, $8 }
