#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Generates the viewer's event constants on stdout from format.h ($1): one
# "const EV_X = 0x...;" line per event number the viewer draws by, so that
# the page and the tools cannot disagree.  Run by the build (viewer.mk),
# which puts the output at the head of the assembled viewer.js; never edit
# the output.  The viewer-only drawing codes (negative) stay in data.js.
set -eu
awk '
BEGIN {
	# viewer name, then format.h names without KUTRACE_ (A+B: their sum)
	n = split("EV_USERPID USERPID EV_RPCREQ RPCIDREQ EV_RPCMID RPCIDMID " \
		"EV_RPCRX RPCIDRXMSG EV_RPCTX RPCIDTXMSG EV_PSTATE PSTATE " \
		"EV_PSTATE2 PSTATE2 EV_MARKA MARKA EV_MARKD MARKD EV_LEFT LEFTMARK " \
		"EV_RIGHT RIGHTMARK EV_RXPKT RX_PKT EV_TXPKT TX_PKT EV_ENQ ENQUEUE " \
		"EV_PCU PC_U EV_PCK PC_K EV_LOCKHELD LOCK_HELD EV_LOCKTRY LOCK_TRY " \
		"EV_WAIT WAIT_BASE EV_IDLE IDLE EV_CEXIT C_EXIT " \
		"EV_LTIMER IRQ+IRQ_LOCAL_TIMER EV_LOST LOST_SPAN", w, " ")
	for (i = 1; i <= n; i += 2) { js[++m] = w[i]; fmt[m] = w[i + 1] }
}
$1 == "#define" && $2 ~ /^KUTRACE_/ && $3 ~ /^(0x[0-9A-Fa-f]+|[0-9]+)$/ {
	v = $3
	if (v ~ /^0x/) { x = 0; h = toupper(substr(v, 3))
		for (j = 1; j <= length(h); j++) x = x * 16 + index("0123456789ABCDEF", substr(h, j, 1)) - 1
		v = x }
	val[substr($2, 9)] = v + 0
}
END {
	print "// Generated from include/kutrace/format.h by viewer/gen_format.sh - do not edit."
	for (i = 1; i <= m; i++) {
		k = split(fmt[i], part, "+"); v = 0
		for (j = 1; j <= k; j++) {
			if (!(part[j] in val)) { print "gen_format.sh: format.h defines no KUTRACE_" part[j] > "/dev/stderr"; exit 1 }
			v += val[part[j]]
		}
		printf "const %s = 0x%X;\n", js[i], v
	}
}' "$1"
