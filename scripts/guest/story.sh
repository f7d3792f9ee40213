#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# make run's story: each handler driven through cmkit's debugfs control
# plane against user-space peers, narrated on stdout.  Exits non-zero if a
# step did not go as told.  Environment: RXE_ADDR, SIW_ADDR; NO_SIW: set (to
# the reason) where the kernel has no siw: the steps on siw0 are left out.

. /usr/lib/cmkit/lib.sh

T=/tmp/story
rm -rf $T
mkdir -p $T
PORT=31000
rc=0

say() { echo "$*"; }
step_failed() { say "  !! $*"; rc=1; }


# rpcrdma: an RPC-over-RDMA endpoint connects to a user-space server that
# announces smaller inline sizes (RFC 8797) and answers NULL calls, makes
# 100 of them, then disconnects.  The first call is traced call by call; the
# per-call events are off for the 100.
EV=/sys/kernel/tracing/events/cmkit_rpcrdma
per_call_events() {	# 0 or 1
	for e in rpcrdma_call_sent rpcrdma_reply rpcrdma_call_done rpcrdma_post_recvs; do
		[ -e $EV/$e/enable ] && echo "$1" > $EV/$e/enable
	done
}

# A number from a calls summary: calls_field <file> <key> (rtt_us's: median, p99).
calls_field() { sed -n "s/.*\"$2\":\([0-9.]*\).*/\1/p" "$1" | head -n 1; }

rpcrdma_story() {	# <device> <addr>
	PORT=$((PORT + 1))
	say "rpcrdma on $1: cmkit-peer serves $2:$PORT announcing send 2048, receive 3072 (RFC 8797), granting 32 credits"
	cmkit-peer serve --addr "$2" --port $PORT --cmp 2048:3072 --rpc --credits 32 --rpc-quiet \
		--timeout 60 > $T/peer.log 2>&1 &
	peer=$!
	await grep -q listening $T/peer.log || step_failed "cmkit-peer did not listen"
	say "  echo 'connect $2 $PORT' > $D/rpcrdma/ctl"
	echo "connect $2 $PORT" > $D/rpcrdma/ctl || step_failed "connect failed"
	n=$(awk -v p=":$PORT " 'index($0, p) { print $1; exit }' $D/rpcrdma/xprts)
	say "  xprts: $(cat $D/rpcrdma/xprts)"
	grep -q "inline_send=3072 inline_recv=2048" $D/rpcrdma/xprts ||
		step_failed "inline sizes were not lowered to the server's"
	say "  echo 'call $n 1' > $D/rpcrdma/ctl      (one credit until this reply grants 32)"
	echo "call $n 1" > $D/rpcrdma/ctl || step_failed "the first call was not accepted"
	per_call_events 0
	say "  echo 'call $n 100' > $D/rpcrdma/ctl"
	echo "call $n 100" > $D/rpcrdma/ctl || step_failed "not every call was accepted"
	per_call_events 1
	say "  100 NULL calls: $(calls_field $D/rpcrdma/calls accepted) accepted, credits $(calls_field $D/rpcrdma/calls credits)," \
		"round trip median $(calls_field $D/rpcrdma/calls median) us, p99 $(calls_field $D/rpcrdma/calls p99) us"
	say "  xprts: $(cat $D/rpcrdma/xprts)"
	grep -q " calls=101 replies=101 errors=0 credits=32" $D/rpcrdma/xprts ||
		step_failed "the calls were not all answered under 32 credits"
	say "  echo 'destroy all' > $D/rpcrdma/ctl"
	echo "destroy all" > $D/rpcrdma/ctl || step_failed "destroy failed"
	wait $peer || step_failed "cmkit-peer exited $?"
	sed 's/^/  peer: /' $T/peer.log
	await grep -qx "reqs_alive 0" $D/rpcrdma/stats || step_failed "a req was left"
	# The benchmark's other side: the same calls from user space, to the
	# same server on the same device.
	PORT=$((PORT + 1))
	cmkit-peer serve --addr "$2" --port $PORT --cmp 2048:3072 --rpc --credits 32 --rpc-quiet \
		--timeout 60 > $T/userserve.log 2>&1 &
	peer=$!
	await grep -q listening $T/userserve.log || step_failed "cmkit-peer did not listen"
	cmkit-peer call --addr "$2" --port $PORT --count 100 --credits 32 > $T/usercall.log 2>&1 ||
		step_failed "cmkit-peer call exited $?"
	wait $peer || step_failed "cmkit-peer serve exited $?"
	say "  the same 100 calls from user space (cmkit-peer call): round trip median" \
		"$(calls_field $T/usercall.log median) us, p99 $(calls_field $T/usercall.log p99) us"
}

# srpt: SRP logins through rdma_cm from user space, one accepted and one
# rejected, on rxe0's rdma_cm-form listener.
srpt_story() {
	port=$(sed -n 's/^rxe0 .*rdma_cm_port=\([0-9]*\).*/\1/p' $D/srpt/targets)
	tpid=$(sed -n 's/^rxe0 .*target_port_id=\([0-9a-f]*\).*/\1/p' $D/srpt/targets)
	say "srpt on rxe0: $(grep '^rxe0' $D/srpt/targets)"
	say "  cmkit-peer srp-login: IU 4096, the right target port id (then disconnects)"
	cmkit-peer srp-login --addr "$RXE_ADDR" --port "$port" --target-port-id "$tpid" \
		--initiator-port-id 00000000000000010000000000000001 --expect accepted \
		> $T/srp.log 2>&1 || step_failed "the login was not accepted"
	sed 's/^/  peer: /' $T/srp.log
	say "  cmkit-peer srp-login: IU 32 bytes, below the SRP minimum"
	cmkit-peer srp-login --addr "$RXE_ADDR" --port "$port" --target-port-id "$tpid" \
		--iu-len 32 --expect rejected:0x00010002 > $T/srp.log 2>&1 ||
		step_failed "the login was not rejected for its IU length"
	sed 's/^/  peer: /' $T/srp.log
	await grep -qx "channels_alive 0" $D/srpt/stats || step_failed "a channel was left"
}

# irdma: cmkit's iWARP connection manager against rdma-core's rping on siw0,
# in both directions: connect and close, accept and close.
irdma_story() {
	PORT=$((PORT + 1))
	say "irdma on siw0: rping -s listens on $SIW_ADDR:$PORT"
	rping -s -d -a "$SIW_ADDR" -p $PORT -C 1 > $T/rping.log 2>&1 &
	pid=$!
	await tcp_listening $PORT || step_failed "rping did not listen"
	say "  echo 'connect $SIW_ADDR $PORT cmkit-hello' > $D/irdma/ctl"
	echo "connect $SIW_ADDR $PORT cmkit-hello" > $D/irdma/ctl || step_failed "connect failed"
	await id_in active " established " || step_failed "not established"
	sed 's/^/  ids: /' $D/irdma/ids
	say "  echo 'close all' > $D/irdma/ctl"
	echo "close all" > $D/irdma/ctl || step_failed "close failed"
	await id_in active " closed " || step_failed "not closed"
	sed 's/^/  ids: /' $D/irdma/ids
	wait $pid
	grep 'cma_event type' $T/rping.log | sed 's/ cma_id.*//; s/^/  rping: /'
	echo "destroy all" > $D/irdma/ctl

	PORT=$((PORT + 1))
	say "irdma on siw0: cmkit listens on $SIW_ADDR:$PORT and accepts; rping -c connects"
	say "  echo 'listen $SIW_ADDR $PORT accept cmkit-accepts' > $D/irdma/ctl"
	echo "listen $SIW_ADDR $PORT accept cmkit-accepts" > $D/irdma/ctl ||
		step_failed "listen failed"
	rping -c -d -a "$SIW_ADDR" -p $PORT -C 1 > $T/rping.log 2>&1 &
	pid=$!
	await id_in passive " established " || step_failed "not established"
	sed 's/^/  ids: /' $D/irdma/ids
	say "  echo 'close all' > $D/irdma/ctl"
	echo "close all" > $D/irdma/ctl || step_failed "close failed"
	await id_in passive " closed " || step_failed "not closed"
	wait $pid
	grep 'cma_event type' $T/rping.log | sed 's/ cma_id.*//; s/^/  rping: /'
	say "  echo 'destroy all' > $D/irdma/ctl"
	echo "destroy all" > $D/irdma/ctl || step_failed "destroy failed"
	await grep -qx "nodes_alive 0" $D/irdma/stats || step_failed "a cm node was left"
}

# irdma: cmkit to cmkit through the control plane, peer-to-peer (RFC 6581)
# with a zero-length RDMA Write as the ready-to-receive message, CRC on.
irdma_p2p_story() {
	PORT=$((PORT + 1))
	say "irdma cmkit to cmkit on $SIW_ADDR:$PORT: P2P, zero-length RDMA Write RTR, CRC"
	say "  echo 'listen $SIW_ADDR $PORT accept cmkit-p2p p2p=write crc=1' > $D/irdma/ctl"
	echo "listen $SIW_ADDR $PORT accept cmkit-p2p p2p=write crc=1" > $D/irdma/ctl ||
		step_failed "listen failed"
	say "  echo 'connect $SIW_ADDR $PORT cmkit-hello p2p=write' > $D/irdma/ctl"
	echo "connect $SIW_ADDR $PORT cmkit-hello p2p=write" > $D/irdma/ctl ||
		step_failed "connect failed"
	await id_in active " established .* p2p=write crc=1 " || step_failed "not established"
	await id_in passive " established .* p2p=write crc=1 " || step_failed "not established"
	sed 's/^/  ids: /' $D/irdma/ids
	say "  echo 'close all' > $D/irdma/ctl"
	echo "close all" > $D/irdma/ctl || step_failed "close failed"
	await id_in active " closed " || step_failed "not closed"
	await id_in passive " closed " || step_failed "not closed"
	echo "destroy all" > $D/irdma/ctl
	await grep -qx "nodes_alive 0" $D/irdma/stats || step_failed "a cm node was left"
}

rpcrdma_story rxe0 "$RXE_ADDR"
if [ -n "$NO_SIW" ]; then
	say "rpcrdma on siw0, irdma on siw0: left out ($NO_SIW)"
else
	rpcrdma_story siw0 "$SIW_ADDR"
fi
srpt_story
if [ -z "$NO_SIW" ]; then
	irdma_story
	irdma_p2p_story
fi

for h in $D/*/stats; do
	say "stats of $(basename "$(dirname "$h")"):"
	sed 's/^/  /' "$h"
done
exit $rc
