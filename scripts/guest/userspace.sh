#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# cmkit_userspace: cmkit's handlers against user-space peers (cmkit-peer and
# rdma-core's own tools), driven through cmkit's debugfs control plane.
# Prints one KTAP suite on stdout.  Runs in the guest after rxe0 and siw0
# were (re)created and cmkit.ko was loaded.
#
# Environment: RXE_ADDR, SIW_ADDR.

. /usr/lib/cmkit/lib.sh

D=/sys/kernel/debug/cmkit
T=/tmp/userspace
rm -rf $T
mkdir -p $T
PORT=30000
N=0
RESULTS=

# ---- helpers -------------------------------------------------------------

# Diagnostics are kept and printed inside the suite, after its plan.
note() { echo "    # $*" >> $T/diag; }


has_line() { grep -q "$2" "$1"; }
stat_is() { grep -qx "$2 $3" "$D/$1/stats"; }

# No live object in any handler's stats.
nothing_alive() {
	await stat_is rpcrdma eps_alive 0 && await stat_is rpcrdma ids_alive 0 &&
		await stat_is srpt channels_alive 0
}

result() {	# result <name> <ok:0|1> [reason]
	N=$((N + 1))
	if [ "$2" = 0 ]; then
		RESULTS="$RESULTS
    ok $N $1"
	else
		RESULTS="$RESULTS
    not ok $N $1${3:+ # $3}"
		note "$1: $3"
	fi
}

# Start cmkit-peer serve in the background; wait until it listens.
serve() {	# serve <log> <args...>
	log=$1
	shift
	cmkit-peer serve "$@" > "$log" 2>&1 &
	PEER=$!
	await has_line "$log" listening
}

# ---- rpcrdma ------------------------------------------------------------

# rpcrdma endpoint -> cmkit-peer serve, with or without RFC 8797 data.
rpcrdma_to_peer() {	# <name> <addr> <cmp or ""> <want send> <want recv>
	name=$1 addr=$2 cmp=$3 ws=$4 wr=$5
	PORT=$((PORT + 1))
	log=$T/$name.log
	why=
	if [ -n "$cmp" ]; then
		serve "$log" --addr "$addr" --port $PORT --cmp "$cmp" --timeout 60 || why="peer did not listen"
	else
		serve "$log" --addr "$addr" --port $PORT --timeout 60 || why="peer did not listen"
	fi
	if [ -z "$why" ]; then
		echo "connect $addr $PORT" > $D/rpcrdma/ctl || why="connect failed"
	fi
	if [ -z "$why" ]; then
		grep -q "inline_send=$ws inline_recv=$wr" $D/rpcrdma/xprts ||
			why="inline sizes: $(cat $D/rpcrdma/xprts)"
		echo "destroy all" > $D/rpcrdma/ctl || why="destroy failed"
	fi
	wait $PEER || why="${why:-cmkit-peer exited $?}"
	grep -q '"event":"RDMA_CM_EVENT_DISCONNECTED"' "$log" || why="${why:-peer saw no disconnect}"
	nothing_alive || why="${why:-objects left: $(tr '\n' ' ' < $D/rpcrdma/stats)}"
	sed 's/^/    # /' "$log" >> $T/diag
	result "$name" "$([ -z "$why" ] && echo 0 || echo 1)" "$why"
}

# rpcrdma endpoint -> rdma-core's rping -s: a foreign server with no
# private data of its own, so the 1 KiB defaults.
rpcrdma_to_rping() {	# <name> <addr>
	name=$1 addr=$2
	PORT=$((PORT + 1))
	why=
	rping -s -a "$addr" -p $PORT -C 1 > $T/$name.log 2>&1 &
	pid=$!
	# rping prints nothing until a client comes: connect until it listens.
	await sh -c "echo 'connect $addr $PORT' > $D/rpcrdma/ctl" || why="connect failed"
	if [ -z "$why" ]; then
		grep -q "inline_send=1024 inline_recv=1024" $D/rpcrdma/xprts ||
			why="inline sizes: $(cat $D/rpcrdma/xprts)"
	fi
	echo "destroy all" > $D/rpcrdma/ctl || why="${why:-destroy failed}"
	kill $pid 2>/dev/null
	wait $pid
	nothing_alive || why="${why:-objects left: $(tr '\n' ' ' < $D/rpcrdma/stats)}"
	result "$name" "$([ -z "$why" ] && echo 0 || echo 1)" "$why"
}

# A bad command gets an error and changes nothing.
bad_commands_are_refused() {
	why=
	for cmd in "connect" "connect 10.1.2 5" "connect 10.77.0.1 0" "frobnicate" \
		   "disconnect 999" "destroy x"; do
		if echo "$cmd" > $D/rpcrdma/ctl 2>/dev/null; then
			why="'$cmd' was accepted"
		fi
	done
	nothing_alive || why="${why:-objects left}"
	result bad_rpcrdma_commands_are_refused "$([ -z "$why" ] && echo 0 || echo 1)" "$why"
}

# ---- srpt ----------------------------------------------------------------

# rxe0's srpt target: its rdma_cm port and target port identifier.
SRPT_PORT=$(sed -n 's/^rxe0 .*rdma_cm_port=\([0-9]*\).*/\1/p' $D/srpt/targets)
SRPT_TPID=$(sed -n 's/^rxe0 .*target_port_id=\([0-9a-f]*\).*/\1/p' $D/srpt/targets)
IPID=00000000000000010000000000000001

# cmkit-peer srp-login against the rdma_cm-form listener on rxe0.
srp_login() {	# <name> <expect> <cmkit-peer args...>
	name=$1 expect=$2
	shift 2
	why=
	if [ -z "$SRPT_PORT" ] || [ -z "$SRPT_TPID" ]; then
		why="no srpt target on rxe0: $(cat $D/srpt/targets)"
	elif ! cmkit-peer srp-login --addr "$RXE_ADDR" --port "$SRPT_PORT" \
		--initiator-port-id $IPID --expect "$expect" --timeout 30 "$@" \
		> $T/$name.log 2>&1; then
		why="expected $expect"
	fi
	sed 's/^/    # /' $T/$name.log >> $T/diag
	nothing_alive || why="${why:-objects left: $(tr '\n' ' ' < $D/srpt/stats)}"
	result "$name" "$([ -z "$why" ] && echo 0 || echo 1)" "$why"
}

# A foreign rdma_cm client aimed at the srpt port: its private data is no
# SRP login, so it is rejected, and nothing is left behind.
foreign_client_rejected() {	# <name> <command...>
	name=$1
	shift
	why=
	before=$(sed -n 's/^logins_rejected //p' $D/srpt/stats)
	if "$@" > $T/$name.log 2>&1; then
		why="the client succeeded"
	fi
	after=$(sed -n 's/^logins_rejected //p' $D/srpt/stats)
	[ "$after" -gt "$before" ] || why="${why:-srpt counted no reject}"
	nothing_alive || why="${why:-objects left: $(tr '\n' ' ' < $D/srpt/stats)}"
	result "$name" "$([ -z "$why" ] && echo 0 || echo 1)" "$why"
}

srpt_cases() {
	srp_login srp_login_accepted_rxe0 accepted --target-port-id "$SRPT_TPID"
	srp_login srp_login_wrong_opcode_rejected_rxe0 rejected:0x00010000 \
		--target-port-id "$SRPT_TPID" --opcode 1
	srp_login srp_login_iu_too_small_rejected_rxe0 rejected:0x00010002 \
		--target-port-id "$SRPT_TPID" --iu-len 32
	srp_login srp_login_iu_too_large_rejected_rxe0 rejected:0x00010002 \
		--target-port-id "$SRPT_TPID" --iu-len 1048576
	srp_login srp_login_unsupported_buffer_format_rejected_rxe0 rejected:0x00010004 \
		--target-port-id "$SRPT_TPID" --buf-fmt 8
	srp_login srp_login_wrong_target_port_id_rejected_rxe0 rejected:0x00010003 \
		--target-port-id 000000000000000000000000000000ff
	foreign_client_rejected rping_client_at_srpt_port_rejected_rxe0 \
		rping -c -a "$RXE_ADDR" -p "$SRPT_PORT" -C 1
	foreign_client_rejected ucmatose_client_at_srpt_port_rejected_rxe0 \
		ucmatose -s "$RXE_ADDR" -p "$SRPT_PORT" -c 1 -C 1
}

bad_srpt_commands_are_refused() {
	why=
	for cmd in "start" "disconnect" "disconnect nope" "frobnicate"; do
		if echo "$cmd" > $D/srpt/ctl 2>/dev/null; then
			why="'$cmd' was accepted"
		fi
	done
	result bad_srpt_commands_are_refused "$([ -z "$why" ] && echo 0 || echo 1)" "$why"
}

# ---- the cases -------------------------------------------------------------

rpcrdma_to_peer rpcrdma_to_peer_with_rfc8797_data_rxe0 "$RXE_ADDR" 2048:3072 3072 2048
rpcrdma_to_peer rpcrdma_to_peer_with_rfc8797_data_siw0 "$SIW_ADDR" 2048:3072 3072 2048
rpcrdma_to_peer rpcrdma_to_peer_without_data_rxe0 "$RXE_ADDR" "" 1024 1024
rpcrdma_to_peer rpcrdma_to_peer_without_data_siw0 "$SIW_ADDR" "" 1024 1024
rpcrdma_to_rping rpcrdma_to_rping_server_rxe0 "$RXE_ADDR"
rpcrdma_to_rping rpcrdma_to_rping_server_siw0 "$SIW_ADDR"
bad_commands_are_refused
srpt_cases
bad_srpt_commands_are_refused

fails=$(echo "$RESULTS" | grep -c '^    not ok')
echo "KTAP version 1"
echo "1..1"
echo "    KTAP version 1"
echo "    # Subtest: cmkit_userspace"
echo "    1..$N"
[ -f $T/diag ] && cat $T/diag
echo "$RESULTS" | sed '/^$/d'
if [ "$fails" -eq 0 ]; then echo "ok 1 cmkit_userspace"; else echo "not ok 1 cmkit_userspace"; fi
