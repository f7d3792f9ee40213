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
	for e in cmkit_rpcrdma_call_sent cmkit_rpcrdma_reply cmkit_rpcrdma_call_done cmkit_rpcrdma_post_recvs; do
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
	n=$(xprt_nr $PORT)
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

# srpt with the kernel's own SRP initiator: ib_srp logs in to rxe0's target
# over rdma_cm (the target port id from cmkit's targets line, split into
# id_ext and ioc_guid), its scan finds cmkit's RAM LUN, a pattern is written
# and read back, and ib_srp logs out.  Left out where the kernel has no
# ib_srp (on a stock leg the guest loads Debian's module: it has one).
srp_initiator_story() {
	host=/sys/class/infiniband_srp/srp-rxe0-1
	rp=/sys/class/srp_remote_ports
	if [ ! -e $host/add_target ]; then
		say "ib_srp on rxe0: left out (this kernel has no ib_srp)"
		return
	fi
	port=$(sed -n 's/^rxe0 .*rdma_cm_port=\([0-9]*\).*/\1/p' $D/srpt/targets)
	tpid=$(sed -n 's/^rxe0 .*target_port_id=\([0-9a-f]*\).*/\1/p' $D/srpt/targets)
	opts="id_ext=$(echo "$tpid" | cut -c1-16),ioc_guid=$(echo "$tpid" | cut -c17-32)"
	opts="$opts,dest=$RXE_ADDR:$port,ch_count=1"
	say "ib_srp on rxe0: logs in to cmkit's target through rdma_cm, one channel"
	say "  echo $opts > $host/add_target"
	ls $rp > $T/rports.before
	rm -f $T/add.rc
	# shellcheck disable=SC2320 # the echo's status is the write's
	( echo "$opts" > $host/add_target 2> $T/add.err; echo $? > $T/add.rc ) &
	# The write returns once the login and the SCSI scan are done (60 s at most).
	await test -e $T/add.rc || await test -e $T/add.rc
	if [ "$(cat $T/add.rc 2>/dev/null)" != 0 ]; then
		step_failed "add_target: $(cat $T/add.rc 2>/dev/null || echo 'no answer in 60 s') $(cat $T/add.err)"
		return
	fi
	rport=
	for r in "$rp"/*; do grep -qx "${r##*/}" $T/rports.before || rport=${r##*/}; done
	h=${rport#port-}
	h=${h%%:*}
	disk=
	await sh -c "ls /sys/bus/scsi/devices/$h:0:0:0/block 2>/dev/null | grep -q ." &&
		disk=$(ls /sys/bus/scsi/devices/$h:0:0:0/block)
	if [ -z "$disk" ]; then
		step_failed "the scan found no disk behind $rport"
	else
		dev=/sys/block/$disk/device
		say "  the scan found $disk: $(cat $dev/vendor | tr -s ' ') $(cat $dev/model | tr -s ' ')," \
			"$(($(cat /sys/block/$disk/size) / 2048)) MiB (cmkit.srpt_lun_mib)"
		say "  dd a 1 MiB random pattern to /dev/$disk (64 KiB blocks, direct I/O), read it back"
		dd if=/dev/urandom of=$T/srp.pat bs=65536 count=16 2>/dev/null
		if dd if=$T/srp.pat of=/dev/$disk bs=65536 oflag=direct 2> $T/dd.err &&
			dd if=/dev/$disk of=$T/srp.back bs=65536 count=16 iflag=direct 2>> $T/dd.err &&
			cmp -s $T/srp.pat $T/srp.back; then
			say "  read back identical"
		else
			step_failed "the pattern did not read back: $(cat $T/dd.err)"
		fi
	fi
	say "  srpt stats: $(grep -E '^(channels_alive|cmds|rsps|rdma_reads|rdma_writes|ctx_alive) ' \
		$D/srpt/stats | tr '\n' ' ')"
	say "  echo 1 > $rp/$rport/delete      (ib_srp logs out)"
	[ -n "$rport" ] && echo 1 > $rp/$rport/delete
	await test ! -e "$rp/$rport" || step_failed "$rport was not removed"
	await grep -qx "channels_alive 0" $D/srpt/stats || step_failed "a channel was left"
	await grep -qx "ctx_alive 0" $D/srpt/stats || step_failed "a send context was left"
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
srp_initiator_story
if [ -z "$NO_SIW" ]; then
	irdma_story
	irdma_p2p_story
fi

for h in $D/*/stats; do
	say "stats of $(basename "$(dirname "$h")"):"
	sed 's/^/  /' "$h"
done
exit $rc
