# SPDX-License-Identifier: GPL-2.0-only
#
# Shared by the guest's shell suites and story (sourced, not run).

# Poll (bounded, 30 s) until a command succeeds: for states, never as a delay.
await() {
	i=0
	while ! "$@" 2>/dev/null; do
		i=$((i + 1))
		[ $i -ge 300 ] && return 1
		sleep 0.1
	done
}

# cmkit's debugfs directory.
D=/sys/kernel/debug/cmkit

# Something listens on TCP port $1, IPv4 or dual stack (siw's listener is
# a kernel TCP socket).
tcp_listening() {
	cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
		grep -qiE ":$(printf %04X "$1") 0+:0000 0A"
}

# An id of cmkit's irdma control plane, by role, has a line matching $2.
id_in() {	# <role> <regex>
	grep -q "^[0-9]* $1 .*$2" $D/irdma/ids
}
