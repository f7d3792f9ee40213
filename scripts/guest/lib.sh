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
