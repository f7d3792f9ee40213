#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# cmkit_userspace: cmkit's handlers against user-space peers (cmkit-peer and
# rdma-core's own tools), driven through cmkit's debugfs control plane.
# Prints one KTAP suite on stdout.  Runs in the guest after rxe0 and siw0
# were (re)created and cmkit.ko was loaded.
#
#   userspace.sh [cmkit_userspace]   the cases of cmkit's handlers
#   userspace.sh cmkit_peer_selftest cmkit-peer against itself (peer_rpc_*):
#                                    no cmkit code, so not counted for cmkit
#
# Environment: RXE_ADDR, SIW_ADDR, SIW_ADDR6 (IPv6 on siw0's netdev); NO_SIW:
# set (to the reason) where the kernel has no siw (Debian's own, a stock
# leg): the cases on siw0 skip.

. /usr/lib/cmkit/lib.sh

SUITE=${1:-cmkit_userspace}
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
		await stat_is rpcrdma reqs_alive 0 && await stat_is rpcrdma reps_alive 0 &&
		await stat_is rpcrdma dma_mapped 0 && await stat_is rpcrdma sendctx_out 0 &&
		await stat_is srpt channels_alive 0 &&
		await stat_is irdma ids_alive 0 && await stat_is irdma nodes_alive 0 &&
		await stat_is irdma listeners_alive 0
}

# Every handler's stats on one line, for a failure's reason.
all_stats() {
	for h in rpcrdma srpt irdma; do
		echo "$h: $(grep -v '^upcall\|^event' $D/$h/stats | tr '\n' ' ')"
	done
}

# Each result goes to the kernel log too, as KUnit's do, so that the host
# can tell from the console which case a crash interrupted.
klog() { echo "$*" > /dev/kmsg 2>/dev/null; }

# A case passes when it found nothing wrong (no reason).
result() {	# result <name> [reason]
	N=$((N + 1))
	# The reason too, on one line: shown live, and if the guest dies
	# later, the console has it.
	if [ -z "$2" ]; then
		klog "    ok $N $1"
	else
		klog "    not ok $N $1 # $(printf %s "$2" | tr '\n' ' ')"
	fi
	if [ -z "$2" ]; then
		RESULTS="$RESULTS
    ok $N $1"
	else
		RESULTS="$RESULTS
    not ok $N $1 # $2"
		note "$1: $2"
	fi
}

# A case that cannot run here: ok with a SKIP directive and the reason.
skip() {	# skip <name> <reason>
	N=$((N + 1))
	klog "    ok $N $1 # SKIP $2"
	RESULTS="$RESULTS
    ok $N $1 # SKIP $2"
}

# True, and case <name> skipped, when it runs on siw0 and the kernel has no
# siw (NO_SIW: the reason).  A case function on siw0 starts with
# 'siw_absent "$name" && return'.
siw_absent() {	# <name>
	case $1 in *_siw0) [ -n "$NO_SIW" ] || return 1 ;; *) return 1 ;; esac
	skip "$1" "$NO_SIW"
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
	siw_absent "$name" && return
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
	nothing_alive || why="${why:-objects left: $(all_stats)}"
	sed 's/^/    # /' "$log" >> $T/diag
	result "$name" "$why"
}

# rpcrdma endpoint -> rdma-core's rping -s: a foreign server with no
# private data of its own, so the 1 KiB defaults.
rpcrdma_to_rping() {	# <name> <addr>
	name=$1 addr=$2
	siw_absent "$name" && return
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
	nothing_alive || why="${why:-objects left: $(all_stats)}"
	result "$name" "$why"
}

# A transport the control plane holds pins cmkit, as a mount pins
# xprtrdma: rmmod is refused (EAGAIN) until `destroy all`.
refcnt_is() { [ "$(cat /sys/module/cmkit/refcnt)" = "$1" ]; }

rpcrdma_transport_pins_the_module() {
	name=rpcrdma_transport_pins_the_module_rxe0
	PORT=$((PORT + 1))
	log=$T/$name.log
	why=
	serve "$log" --addr "$RXE_ADDR" --port $PORT --timeout 60 || why="peer did not listen"
	if [ -z "$why" ]; then
		echo "connect $RXE_ADDR $PORT" > $D/rpcrdma/ctl || why="connect failed"
	fi
	if [ -z "$why" ]; then
		refcnt_is 0 && why="refcnt 0 with a live transport"
		if rmmod cmkit 2> "$log.rmmod"; then
			why="${why:-rmmod cmkit succeeded with a live transport}"
			# cmkit.ko as init loaded it (a stock leg's: DKMS's, by modprobe)
			if [ -e /lib/cmkit/cmkit.ko ]; then insmod /lib/cmkit/cmkit.ko; else modprobe cmkit; fi ||
				why="$why; reloading cmkit failed"
		else
			grep -q "unavailable\|busy" "$log.rmmod" ||
				why="${why:-rmmod: $(cat "$log.rmmod")}"
		fi
	fi
	echo "destroy all" > $D/rpcrdma/ctl || why="${why:-destroy failed}"
	wait $PEER
	await refcnt_is 0 || why="${why:-refcnt $(cat /sys/module/cmkit/refcnt) after destroy all}"
	nothing_alive || why="${why:-objects left: $(all_stats)}"
	result "$name" "$why"
}

# A bad command gets an error and changes nothing.
bad_commands_are_refused() {
	why=
	for cmd in "connect" "connect 10.1.2 5" "connect 10.77.0.1 0" "frobnicate" \
		   "connect 10.77.0.1 5 0 4096" "connect 10.77.0.1 5 4096 1048576" \
		   "connect 10.77.0.1 5 4096 4096 junk" "connect 10.77.0.1 5 4096" \
		   "disconnect 999" "destroy x" "call" "call 999 1" "call 1" "call 1 0" \
		   "call 1 1 100003"; do
		if echo "$cmd" > $D/rpcrdma/ctl 2>/dev/null; then
			why="'$cmd' was accepted"
		fi
	done
	nothing_alive || why="${why:-objects left: $(all_stats)}"
	result bad_rpcrdma_commands_are_refused "$why"
}

# ---- rpcrdma: NULL calls from cmkit's endpoint ----------------------------


# cmkit's endpoint -> cmkit-peer serve --rpc, "call <n> <count>" through
# the control plane; its errno (from the calls file), the xprts line and the
# calls summary are checked, and the server's summary.
# rpcrdma_calls_peer <name> <addr> <count> <errno> "<serve args>" "<xprts words>"
#                    "<calls summary checks>" "<serve summary checks>"
rpcrdma_calls_peer() {
	siw_absent "$1" && return
	name=$1 addr=$2 count=$3 want=$4 sargs=$5 xchecks=$6 cchecks=$7 schecks=$8
	PORT=$((PORT + 1))
	log=$T/$name.serve.log
	why=
	serve "$log" --addr "$addr" --port $PORT --timeout 60 --rpc $sargs ||
		why="cmkit-peer serve did not listen"
	if [ -z "$why" ]; then
		echo "connect $addr $PORT" > $D/rpcrdma/ctl || why="connect failed"
	fi
	if [ -z "$why" ]; then
		n=$(xprt_nr $PORT)
		echo "call $n $count" > $D/rpcrdma/ctl 2> $T/$name.err
		summary_has $D/rpcrdma/calls "errno=$want" ||
			why="call $n $count: $(cat $T/$name.err) (wanted errno $want)"
		for w in $xchecks; do
			sed 's/$/ /' $D/rpcrdma/xprts | grep -q " $w " || why="${why:-xprts lacks $w}"
		done
		for c in $cchecks; do
			summary_has $D/rpcrdma/calls "$c" || why="${why:-calls summary lacks $c}"
		done
		[ -n "$why" ] && note "xprts: $(cat $D/rpcrdma/xprts)" &&
			note "calls: $(cut -c1-600 $D/rpcrdma/calls)"
		echo "destroy all" > $D/rpcrdma/ctl || why="${why:-destroy failed}"
	fi
	wait $PEER
	for c in $schecks; do
		summary_has "$log" "$c" || why="${why:-serve summary lacks $c}"
	done
	nothing_alive || why="${why:-objects left: $(all_stats)}"
	[ -n "$why" ] && sed 's/^/    # serve: /' "$log" | tail -n 20 >> $T/diag
	result "$name" "$why"
}

# cmkit's endpoint -> cmkit-peer serve --rpc, the RPC test program through
# the control plane's proc command (1 KiB inline each way: the server sends
# no RFC 8797 message): three calls inline, five with their data in read and
# write chunks that the server RDMA-reads and -writes, and a MIRROR whole in
# a position-zero read chunk with its reply whole in the reply chunk.  Each
# command's data is checked by the kernel (its write fails otherwise); the
# chunk bytes are counted on both sides.
rpcrdma_procs_peer() {	# <name> <addr>
	siw_absent "$1" && return
	name=$1 addr=$2
	PORT=$((PORT + 1))
	log=$T/$name.serve.log
	why=
	serve "$log" --addr "$addr" --port $PORT --timeout 60 --rpc --rpc-quiet ||
		why="cmkit-peer serve did not listen"
	if [ -z "$why" ]; then
		echo "connect $addr $PORT" > $D/rpcrdma/ctl || why="connect failed"
	fi
	if [ -z "$why" ]; then
		n=$(xprt_nr $PORT)
		for c in "echo 512" "sink 256" "echo 65536" "fill 1048576" "sink 1048576" \
			 "fill 4096" "echo 1048576" "mirror 256" "mirror 65536"; do
			echo "proc $n $c" > $D/rpcrdma/ctl 2> $T/$name.err ||
				why="${why:-proc $n $c: $(cat $T/$name.err)}"
		done
		# read: 65536 + 1048576 + 1048576 + the MIRROR call (44 + 65536);
		# write: 65536 + 1048576 + 4096 + 1048576; reply: its reply (28 + 65536)
		sed 's/$/ /' $D/rpcrdma/xprts |
			grep -q " procs=9 proc_errors=0 read_chunk=2228268 write_chunk=2166784 reply_chunk=65564 " ||
			why="${why:-xprts: $(cat $D/rpcrdma/xprts)}"
		echo "destroy all" > $D/rpcrdma/ctl || why="${why:-destroy failed}"
	fi
	wait $PEER
	for c in procs=9 read_bytes=2228268 written_bytes=2166784 nomsg_calls=1 reply_chunks=1 \
		 reply_bytes=65564; do
		summary_has "$log" "$c" || why="${why:-serve summary lacks $c}"
	done
	nothing_alive || why="${why:-objects left: $(all_stats)}"
	[ -n "$why" ] && sed 's/^/    # serve: /' "$log" | tail -n 20 >> $T/diag
	result "$name" "$why"
}

rpcrdma_calls_cases() {	# <device> <addr>
	dev=$1 addr=$2
	rpcrdma_procs_peer rpcrdma_procs_peer_inline_and_in_chunks_$dev "$addr"
	rpcrdma_calls_peer rpcrdma_calls_peer_credits_32_$dev "$addr" 100 0 "--credits 32 --rpc-quiet" \
		"calls=100 replies=100 errors=0 credits=32" \
		"status=ok accepted=100 credits=32 unanswered=0" "calls=100 success=100"
	rpcrdma_calls_peer rpcrdma_calls_peer_credits_1_$dev "$addr" 20 0 "--credits 1" \
		"calls=20 replies=20 credits=1" "status=ok accepted=20 max_outstanding=1" \
		"calls=20 success=20"
	rpcrdma_calls_peer rpcrdma_calls_peer_credits_64_clamped_to_32_$dev "$addr" 100 0 \
		"--credits 64 --rpc-quiet" "calls=100 replies=100 credits=32" \
		"status=ok accepted=100 credits=32" "calls=100 success=100"
	rpcrdma_calls_peer rpcrdma_calls_peer_credits_0_counts_as_1_$dev "$addr" 10 0 "--credits 0" \
		"calls=10 replies=10 credits=1" "status=ok max_outstanding=1" "calls=10"
	rpcrdma_calls_peer rpcrdma_calls_peer_err_vers_$dev "$addr" 5 -71 "--rpc-error vers" \
		"calls=5 replies=0 errors=5" "status=rejected rejected=5 E_ERR_VERS=5" "calls=5 errors=5"
	rpcrdma_calls_peer rpcrdma_calls_peer_err_chunk_$dev "$addr" 5 -71 "--rpc-error chunk" \
		"calls=5 errors=5" "status=rejected rejected=5 E_ERR_CHUNK=5" "calls=5 errors=5"
	rpcrdma_calls_peer rpcrdma_calls_peer_short_reply_malformed_$dev "$addr" 3 -71 \
		"--rpc-corrupt short" "calls=3 errors=3" "status=malformed malformed=3 E_SHORT=3" \
		"calls=3"
	rpcrdma_calls_peer rpcrdma_calls_peer_xid_mismatch_malformed_$dev "$addr" 3 -71 \
		"--rpc-corrupt xid" "calls=3 errors=3" "status=malformed malformed=3 E_XID=3" "calls=3"
	# An endpoint that does not reconnect ends its calls with the
	# connection the server closed under them ...
	echo 0 > /sys/module/cmkit/parameters/rpcrdma_reconnect
	rpcrdma_calls_peer rpcrdma_calls_peer_server_disconnects_under_calls_$dev "$addr" 50 -103 \
		"--rpc-disconnect-at 4 --credits 8" "disconnected" "status=disconnected aborted>0" \
		"calls=4"
	echo 1 > /sys/module/cmkit/parameters/rpcrdma_reconnect
	# ... and one that does (the default) connects again, sends the calls
	# the server left unanswered with their xids and the rest of the batch,
	# and every call completes: the server disconnects at the 4th call of
	# its first connection and serves its second (--count 2) to the end.
	rpcrdma_calls_peer rpcrdma_calls_peer_server_comes_back_and_every_call_completes_$dev \
		"$addr" 50 0 "--rpc-disconnect-at 4 --credits 8 --count 2 --rpc-quiet" \
		"reconnects=1 calls=50 replies=50 errors=0" "status=ok accepted=50 aborted=0" \
		"calls=4 dropped=1"
	# A call the server drops, or answers with another version, times out
	# (shortened to 3 s) and closes the connection.
	echo 3000 > /sys/module/cmkit/parameters/rpcrdma_call_timeout_ms
	rpcrdma_calls_peer rpcrdma_calls_peer_dropped_call_times_out_$dev "$addr" 5 -110 \
		"--rpc-drop 3" "calls=5 replies=4 errors=1" "status=timeout timedout=1 accepted=4" \
		"calls=5 dropped=1"
	rpcrdma_calls_peer rpcrdma_calls_peer_other_version_reply_dropped_$dev "$addr" 3 -110 \
		"--rpc-corrupt vers" "calls=1 errors=1" "status=timeout timedout=1 sent=1" "calls=1"
	echo 60000 > /sys/module/cmkit/parameters/rpcrdma_call_timeout_ms
}

# Every refusal cmkit-peer serve can give, once, on rxe0.
rpcrdma_calls_rejections() {
	for r in prog:E_PROG_UNAVAIL progvers:E_PROG_MISMATCH proc:E_PROC_UNAVAIL \
		 garbage:E_GARBAGE_ARGS system:E_SYSTEM_ERR rpcvers:E_RPC_MISMATCH \
		 auth:E_AUTH_ERROR; do
		rpcrdma_calls_peer "rpcrdma_calls_peer_reject_${r%%:*}_rxe0" "$RXE_ADDR" 2 -71 \
			"--rpc-reject ${r%%:*}" "calls=2 errors=2" "status=rejected ${r#*:}=2" "calls=2"
	done
}

# A transport with a call in flight pins cmkit; "destroy all" ends the call
# (ECONNABORTED) and unpins it: what unloading cmkit takes.
rpcrdma_call_in_flight_pins_the_module() {
	name=rpcrdma_call_in_flight_pins_the_module_rxe0
	PORT=$((PORT + 1))
	log=$T/$name.serve.log
	why=
	serve "$log" --addr "$RXE_ADDR" --port $PORT --timeout 60 --rpc --rpc-delay-ms 30000 ||
		why="peer did not listen"
	if [ -z "$why" ]; then
		echo "connect $RXE_ADDR $PORT" > $D/rpcrdma/ctl || why="connect failed"
	fi
	if [ -z "$why" ]; then
		n=$(xprt_nr $PORT)
		sh -c "echo 'call $n 1' > $D/rpcrdma/ctl" 2> $T/$name.err &
		callpid=$!
		await grep -q "\"n\":1" "$log" || why="the call never reached the server"
		if rmmod cmkit 2> /dev/null; then
			why="${why:-rmmod cmkit succeeded with a call in flight}"
			insmod /lib/cmkit/cmkit.ko || why="$why; insmod cmkit failed"
		fi
		echo "destroy all" > $D/rpcrdma/ctl || why="${why:-destroy failed}"
		wait $callpid && why="${why:-the call succeeded after destroy all}"
		grep -q "abort" $T/$name.err || why="${why:-the call ended with: $(cat $T/$name.err)}"
	fi
	kill $PEER 2>/dev/null
	wait $PEER
	await refcnt_is 0 || why="${why:-refcnt $(cat /sys/module/cmkit/refcnt) after destroy all}"
	nothing_alive || why="${why:-objects left: $(all_stats)}"
	result "$name" "$why"
}

# The kernel's own NFS server over RDMA (svcrdma) as the server: nfsd_start
# and nfsd_export (lib.sh), NFSv4 only, its RDMA listener on port 20049 of
# every address, exporting $NFS_EXPORT to rxe0's and siw0's addresses.

# The guest's nfsd cannot serve case $1: skipped when the kernel has no
# nfsd, failed when it did not start, export or end its grace period.
nfsd_unready() {	# <name>; true when the case is already reported
	if [ -n "$NFSD_ABSENT" ]; then
		skip "$1" "$NFSD_ABSENT"
		return 0
	fi
	if [ -n "$NFSD_DOWN" ]; then
		result "$1" "nfsd is not serving: $NFSD_DOWN"
		return 0
	fi
	return 1
}

# cmkit's endpoint calls program 100003 at nfsd: version 4 is accepted,
# version 3 refused with PROG_MISMATCH 4..4 (EPROTO).
rpcrdma_calls_nfsd() {	# <device> <addr>
	name=rpcrdma_calls_nfsd_over_rdma_$1
	siw_absent "$name" && return
	why=
	nfsd_unready "$name" && return
	await sh -c "echo 'connect $2 20049' > $D/rpcrdma/ctl" || why="connect to nfsd failed"
	if [ -z "$why" ]; then
		n=$(xprt_nr 20049)
		echo "call $n 20 100003 4" > $D/rpcrdma/ctl 2> $T/$name.err ||
			why="NFSv4 NULL: $(cat $T/$name.err)"
		summary_has $D/rpcrdma/calls "accepted=20" || why="${why:-NFSv4: $(cat $D/rpcrdma/calls)}"
		grep -q " calls=20 replies=20 errors=0 credits=32" $D/rpcrdma/xprts ||
			why="${why:-xprts: $(cat $D/rpcrdma/xprts)}"
		echo "call $n 1 100003 3" > $D/rpcrdma/ctl 2> $T/$name.err &&
			why="${why:-NFSv3 NULL accepted}"
		summary_has $D/rpcrdma/calls "errno=-71" && summary_has $D/rpcrdma/calls "E_PROG_MISMATCH=1" ||
			why="${why:-NFSv3: $(cat $D/rpcrdma/calls)}"
		echo "destroy all" > $D/rpcrdma/ctl || why="${why:-destroy failed}"
	fi
	nothing_alive || why="${why:-objects left: $(all_stats)}"
	result "$name" "$why"
}

# The kernel's own NFS client (CONFIG_NFS_FS, CONFIG_NFS_V4 and xprtrdma)
# mounts nfsd's export over RDMA (NFSv4.0, port 20049), reads the file
# nfsd_export wrote and compares it with the pattern, writes a file of its
# own (64 KiB) and finds it on the server's side after the unmount.
# busybox's mount hands the options to the kernel as they are, so they
# carry the server's address (addr=, which mount.nfs would add) and the
# callback address (clientaddr=).  soft: a server that stops answering
# fails the case instead of hanging it.  A lookup that misses nfsd's
# caches within 30 s of their priming waits for a mountd (the kernel
# counts a channel written to in the last 30 s as one listening): the
# request is dropped, and the mount retries until it is killed (45 s; a
# good mount takes a second or two).
kernel_nfs_client() {	# <device> <addr>
	name=kernel_nfs_client_reads_and_writes_the_export_over_rdma_$1
	dev=$1 addr=$2
	siw_absent "$name" && return
	if ! grep -qw nfs4 /proc/filesystems && ! grep -qw nfs /proc/filesystems; then
		skip "$name" "the kernel has no NFS client (neither built in nor loaded)"
		return
	fi
	nfsd_unready "$name" && return
	why=
	m=/mnt/nfs-$dev
	mkdir -p $m
	if ! nfs_rdma_mount "$addr" $m $T/$name.err; then
		why="mount of $addr:/ over RDMA: $(cat $T/$name.err)"
	else
		grep -q " $m nfs4 .*proto=rdma" /proc/mounts ||
			why="not NFSv4 over RDMA: $(grep " $m " /proc/mounts)"
		size=$(wc -c < $m/$NFS_FILE)
		[ "$size" = $NFS_FILE_SIZE ] || why="${why:-$NFS_FILE has $size bytes, not $NFS_FILE_SIZE}"
		sum=$(sha256sum < $m/$NFS_FILE | cut -d' ' -f1)
		[ "$sum" = "$NFS_SUM" ] || why="${why:-$NFS_FILE read over NFS: sha256 $sum, not $NFS_SUM (the pattern)}"
		nfs_pattern 65536 > $m/written-over-$dev 2> $T/$name.err ||
			why="${why:-write: $(cat $T/$name.err)}"
		# The per-mount RPC counts: the READ and WRITE went over the mount's
		# transport, rdma (xprt line).
		awk -v m=" $m " 'index($0, m) && /^device / { on = 1; next }
			/^device / { on = 0 } on' /proc/self/mountstats > $T/$name.stats
		grep -q "xprt:[[:space:]]*rdma " $T/$name.stats ||
			why="${why:-not over rdma: $(grep xprt: $T/$name.stats)}"
		timeout -s KILL 60 umount $m 2> $T/$name.err || why="${why:-umount: $(cat $T/$name.err)}"
		for op in READ WRITE; do
			n=$(awk -v op="$op:" '$1 == op { print $2 }' $T/$name.stats)
			[ "${n:-0}" -gt 0 ] || why="${why:-no $op RPC counted: $(grep -E "^[[:space:]]*(READ|WRITE):" $T/$name.stats)}"
		done
		wrote=$(sha256sum < $NFS_EXPORT/written-over-$dev | cut -d' ' -f1)
		[ "$wrote" = "$(nfs_pattern 65536 | sha256sum | cut -d' ' -f1)" ] ||
			why="${why:-the server has $(wc -c < $NFS_EXPORT/written-over-$dev) bytes of another content}"
		rm -f $NFS_EXPORT/written-over-$dev
	fi
	grep -q " $m " /proc/mounts && umount -l $m
	[ -n "$why" ] && dmesg | tail -n 15 | sed 's/^/    # /' >> $T/diag
	result "$name" "$why"
}

# cmkit's endpoint sends NFSv4.0 COMPOUNDs to nfsd (rpcrdma/nfs4.c, the
# nfs4 verb): PUTROOTFH, LOOKUP, GETFH, GETATTR give $NFS_FILE's size,
# READs of 256 KiB bring the whole file back through write chunks (the
# nfs4_data file holds what came, compared with the export's file byte
# for byte; nfsd answers with less when its max_block_size is smaller, and
# the verb goes on from there), the same read again with up to 8 READs in
# flight (the verb's depth argument: as many READs, of the size the first
# read found, more than one outstanding at once, the same bytes), and a WRITE of 64 KiB of the pattern through a read chunk
# (anonymous stateid, AUTH_SYS as root) lands in a file of zeros the case
# made, which the verb reads back through a write chunk and the case
# compares on the server's side.  Runs after nfsd's grace period ended
# (the anonymous stateid is refused with NFS4ERR_GRACE before).
rpcrdma_nfs4_nfsd() {	# <device> <addr>
	name=rpcrdma_nfs4_reads_and_writes_the_export_over_rdma_$1
	dev=$1
	siw_absent "$name" && return
	nfsd_unready "$name" && return
	why=
	w=cmkit-nfs4-$dev
	{ head -c 65536 /dev/zero > $NFS_EXPORT/$w && chmod 666 $NFS_EXPORT/$w; } 2> $T/$name.err ||
		why="cannot make $w: $(cat $T/$name.err)"
	[ -n "$why" ] || await sh -c "echo 'connect $2 $NFS_PORT' > $D/rpcrdma/ctl" ||
		why="connect to nfsd failed"
	if [ -z "$why" ]; then
		n=$(xprt_nr $NFS_PORT)
		echo "nfs4 $n read $NFS_FILE" > $D/rpcrdma/ctl 2> $T/$name.err ||
			why="nfs4 read: $(cat $T/$name.err) ($(grep "^$n " $D/rpcrdma/xprts))"
		line=$(grep "^$n " $D/rpcrdma/xprts)
		# READs of 256 KiB, or of nfsd's max_block_size when smaller (it
		# follows the guest's memory: 128 KiB in a small guest).
		piece=$(cat $NFSD/max_block_size)
		[ "$piece" -gt 262144 ] && piece=262144
		reads=$(((NFS_FILE_SIZE + piece - 1) / piece))
		for want in nfs4=1 nfs4_errors=0 nfs4_status=0 nfs4_size=$NFS_FILE_SIZE \
			nfs4_read=$NFS_FILE_SIZE nfs4_reads=$reads; do
			case " $line " in *" $want "*) ;; *) why="${why:-read: no $want in: $line}" ;; esac
		done
		cmp $D/rpcrdma/nfs4_data $NFS_EXPORT/$NFS_FILE > $T/$name.cmp 2>&1 ||
			why="${why:-the data READ brought differs from $NFS_FILE: $(cat $T/$name.cmp)}"
		# Again with up to 8 READs outstanding: READs of the server's READ
		# size that the first read found (nfs4_rsize), as many, in flight
		# together from work items, the data put together as before.
		echo "nfs4 $n read $NFS_FILE 8" > $D/rpcrdma/ctl 2> $T/$name.err ||
			why="${why:-nfs4 read at depth 8: $(cat $T/$name.err) ($(grep "^$n " $D/rpcrdma/xprts))}"
		line=$(grep "^$n " $D/rpcrdma/xprts)
		for want in nfs4=2 nfs4_errors=0 nfs4_read=$NFS_FILE_SIZE nfs4_reads=$reads \
			nfs4_depth=8 nfs4_rsize=$piece; do
			case " $line " in *" $want "*) ;; *) why="${why:-read at depth 8: no $want in: $line}" ;; esac
		done
		inflight=$(echo "$line" | sed -n 's/.* nfs4_in_flight=\([0-9]*\).*/\1/p')
		[ "${inflight:-0}" -gt 1 ] || why="${why:-read at depth 8: not two READs in flight at once: $line}"
		cmp $D/rpcrdma/nfs4_data $NFS_EXPORT/$NFS_FILE > $T/$name.cmp 2>&1 ||
			why="${why:-the data READs at depth 8 brought differ from $NFS_FILE: $(cat $T/$name.cmp)}"
		echo "nfs4 $n write $w 65536" > $D/rpcrdma/ctl 2> $T/$name.err ||
			why="${why:-nfs4 write: $(cat $T/$name.err) ($(grep "^$n " $D/rpcrdma/xprts))}"
		line=$(grep "^$n " $D/rpcrdma/xprts)
		# The two reads' COMPOUNDs (LOOKUP, the READs, each) and the write's
		# three (LOOKUP, WRITE, READ back), none refused or sent again.
		calls=$((2 * (reads + 1) + 3))
		for want in nfs4=3 nfs4_errors=0 nfs4_status=0 nfs4_size=65536 nfs4_written=65536 \
			nfs4_verified=65536 calls=$calls replies=$calls errors=0; do
			case " $line " in *" $want "*) ;; *) why="${why:-write: no $want in: $line}" ;; esac
		done
		nfs_pattern 65536 | cmp - $NFS_EXPORT/$w > $T/$name.cmp 2>&1 ||
			why="${why:-the server's $w is not what was written: $(cat $T/$name.cmp)}"
		echo "destroy all" > $D/rpcrdma/ctl || why="${why:-destroy failed}"
	fi
	rm -f $NFS_EXPORT/$w
	nothing_alive || why="${why:-objects left: $(all_stats)}"
	[ -n "$why" ] && dmesg | tail -n 15 | sed 's/^/    # /' >> $T/diag
	result "$name" "$why"
}

rpcrdma_nfsd_cases() {
	NFSD_DOWN=
	# The test kernels have nfsd built in; a stock guest has loaded
	# Debian's nfsd.ko and rpcrdma.ko (svcrdma) with its RDMA modules.
	# No leg expects this skip: kunit/expected.txt fails a run that takes it.
	NFSD_ABSENT=
	grep -qw nfsd /proc/filesystems ||
		NFSD_ABSENT="the kernel has no nfsd (neither built in nor loaded)"
	: > $T/nfsd.err
	[ -n "$NFSD_ABSENT" ] || nfsd_start $T/nfsd.err || NFSD_DOWN=$(cat $T/nfsd.err)
	rpcrdma_calls_nfsd rxe0 "$RXE_ADDR"
	rpcrdma_calls_nfsd siw0 "$SIW_ADDR"
	if [ -z "$NFSD_ABSENT$NFSD_DOWN" ]; then
		NFS_SUM=$(nfs_file_sum)
		nfsd_export $T/nfsd.err "$RXE_ADDR" "$SIW_ADDR" || NFSD_DOWN=$(cat $T/nfsd.err)
		# No OPEN before the grace period ended (10 s from nfsd_start).
		[ -n "$NFSD_DOWN" ] || await nfsd_grace_over ||
			NFSD_DOWN="its grace period did not end: v4_end_grace $(cat $NFSD/v4_end_grace)"
	fi
	rpcrdma_nfs4_nfsd rxe0 "$RXE_ADDR"
	rpcrdma_nfs4_nfsd siw0 "$SIW_ADDR"
	kernel_nfs_client rxe0 "$RXE_ADDR"
	kernel_nfs_client siw0 "$SIW_ADDR"
	nfsd_stop
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
	nothing_alive || why="${why:-objects left: $(all_stats)}"
	result "$name" "$why"
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
	nothing_alive || why="${why:-objects left: $(all_stats)}"
	result "$name" "$why"
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
	result bad_srpt_commands_are_refused "$why"
}

# ---- irdma -----------------------------------------------------------------

hex() { printf %s "$1" | od -An -tx1 | tr -d ' \n'; }
stat_of() { sed -n "s/^$2 //p" $D/$1/stats; }

# Wait for a background peer, keep its log, forget every irdma id, and
# see that nothing is left.
irdma_finish() {	# <pid or ""> <log>
	[ -n "$1" ] && wait "$1"
	sed 's/^/    # /' "$2" >> $T/diag
	echo "ids: $(cat $D/irdma/ids)" | sed 's/^/    # /' >> $T/diag
	echo "destroy all" > $D/irdma/ctl || why="${why:-destroy failed}"
	nothing_alive || why="${why:-objects left: $(all_stats)}"
}

# rdma-core's rping client over siw0 -> cmkit's irdma listener, which
# accepts (then closes) or rejects.  rping sends no private data of its
# own, and asks for IRD 1 (its responder_resources).
irdma_rping_client() {	# <name> accept|reject
	name=$1 policy=$2
	siw_absent "$name" && return
	PORT=$((PORT + 1))
	log=$T/$name.log
	why=
	n0=$(stat_of irdma requests_$policy"ed")
	echo "listen $SIW_ADDR $PORT $policy cmkit-$policy" > $D/irdma/ctl || why="listen failed"
	timeout 90 rping -c -d -a "$SIW_ADDR" -p $PORT -C 1 > "$log" 2>&1 &
	pid=$!
	await id_in listener " requests=1 " || why="${why:-no request: $(cat $D/irdma/ids)}"
	id_in listener " requests=1 status=0 ird=1 ord=[0-9]* peer_pdata= peer_pdata_len=0 " ||
		why="${why:-request not as rping sent it: $(cat $D/irdma/ids)}"
	if [ "$policy" = accept ]; then
		await id_in passive " established " || why="${why:-not established: $(cat $D/irdma/ids)}"
		echo "close all" > $D/irdma/ctl || why="${why:-close failed}"
		await id_in passive " closed " || why="${why:-not closed: $(cat $D/irdma/ids)}"
	fi
	wait $pid
	if [ "$policy" = accept ]; then
		grep -q RDMA_CM_EVENT_ESTABLISHED "$log" || why="${why:-rping was not established}"
		grep -qi "DISCONNECT" "$log" || why="${why:-rping saw no disconnect}"
	else
		grep -q RDMA_CM_EVENT_REJECTED "$log" || why="${why:-rping was not rejected}"
		id_in passive " rejected status=0 " ||
			why="${why:-no passive id rejected it: $(cat $D/irdma/ids)}"
		id_in passive " established " && why="${why:-a rejected request made a connection}"
	fi
	[ "$(stat_of irdma requests_$policy"ed")" -eq $((n0 + 1)) ] ||
		why="${why:-requests_${policy}ed did not count it}"
	irdma_finish $pid "$log"
	result "$name" "$why"
}

# cmkit-peer connect over siw0, with private data, -> cmkit's irdma
# listener: each side sees the other's private data.
irdma_peer_client() {	# <name> accept|reject
	name=$1 policy=$2
	siw_absent "$name" && return
	PORT=$((PORT + 1))
	log=$T/$name.log
	why=
	want=established
	[ "$policy" = reject ] && want=rejected
	echo "listen $SIW_ADDR $PORT $policy cmkit-$policy" > $D/irdma/ctl || why="listen failed"
	cmkit-peer connect --addr "$SIW_ADDR" --port $PORT --pdata "$(hex cmkit-peer-hello)" \
		--expect $want --timeout 30 > "$log" 2>&1 || why="cmkit-peer was not $want"
	id_in listener " peer_pdata=$(hex cmkit-peer-hello) peer_pdata_len=16 " ||
		why="${why:-the request's private data: $(cat $D/irdma/ids)}"
	grep -q "\"private_data\":\"$(hex cmkit-$policy)\"" "$log" ||
		why="${why:-cmkit-peer did not get cmkit's private data}"
	if [ "$policy" = accept ]; then	# cmkit-peer disconnects once established
		await id_in passive " closed " || why="${why:-not closed: $(cat $D/irdma/ids)}"
	fi
	irdma_finish "" "$log"
	result "$name" "$why"
}

# cmkit's irdma connects over siw0 to rdma-core's rping server, then closes.
irdma_to_rping_server() {	# <name>
	name=$1
	siw_absent "$name" && return
	PORT=$((PORT + 1))
	log=$T/$name.log
	why=
	timeout 90 rping -s -d -a "$SIW_ADDR" -p $PORT -C 1 > "$log" 2>&1 &
	pid=$!
	await tcp_listening $PORT || why="rping did not listen"
	echo "connect $SIW_ADDR $PORT cmkit-hello" > $D/irdma/ctl || why="${why:-connect failed}"
	await id_in active " established " || why="${why:-not established: $(cat $D/irdma/ids)}"
	echo "close all" > $D/irdma/ctl || why="${why:-close failed}"
	await id_in active " closed " || why="${why:-not closed: $(cat $D/irdma/ids)}"
	wait $pid
	grep -q RDMA_CM_EVENT_CONNECT_REQUEST "$log" || why="${why:-rping got no request}"
	grep -q RDMA_CM_EVENT_ESTABLISHED "$log" || why="${why:-rping was not established}"
	grep -qi "DISCONNECT" "$log" || why="${why:-rping saw no disconnect}"
	irdma_finish $pid "$log"
	result "$name" "$why"
}

# cmkit's irdma connects over siw0 to cmkit-peer serve, which accepts (and
# cmkit closes) or rejects with private data.
irdma_to_peer_server() {	# <name> accept|reject
	name=$1 policy=$2
	siw_absent "$name" && return
	PORT=$((PORT + 1))
	log=$T/$name.log
	why=
	if [ "$policy" = reject ]; then
		serve "$log" --addr "$SIW_ADDR" --port $PORT --reject "$(hex peer-rejects)" \
			--timeout 60 || why="peer did not listen"
	else
		serve "$log" --addr "$SIW_ADDR" --port $PORT --timeout 60 || why="peer did not listen"
	fi
	echo "connect $SIW_ADDR $PORT cmkit-hello" > $D/irdma/ctl || why="${why:-connect failed}"
	if [ "$policy" = reject ]; then
		await id_in active " rejected status=-111 " ||
			why="${why:-not rejected: $(cat $D/irdma/ids)}"
		id_in active " peer_pdata=$(hex peer-rejects) " ||
			why="${why:-the reject's private data: $(cat $D/irdma/ids)}"
	else
		await id_in active " established " || why="${why:-not established: $(cat $D/irdma/ids)}"
		echo "close all" > $D/irdma/ctl || why="${why:-close failed}"
		await id_in active " closed " || why="${why:-not closed: $(cat $D/irdma/ids)}"
	fi
	wait $PEER || why="${why:-cmkit-peer exited $?}"
	grep -q "RDMA_CM_EVENT_CONNECT_REQUEST\",\"status\":0,\"private_data_len\":11,\"private_data\":\"$(hex cmkit-hello)\"" \
		"$log" || why="${why:-cmkit-peer did not get cmkit's private data}"
	irdma_finish "" "$log"
	result "$name" "$why"
}

# A connection destroyed while it waits for its MPA reply is forgotten at
# once, and reset by cmkit's upper layer as soon as the reply makes it
# established.  The peer is a raw TCP listener (busybox nc) that sends an
# enhanced MPA reply only when told to, after the destroy.
irdma_destroyed_while_connecting_is_reset_once_up() {
	name=irdma_destroyed_while_connecting_is_reset_once_up
	PORT=$((PORT + 1))
	log=$T/$name.log
	why=
	rm -f $T/go
	cat > $T/mpa_peer.sh <<-EOF
		. /usr/lib/cmkit/lib.sh
		cat > /dev/null &
		await test -e $T/go || exit 1
		printf '%s\\020\\002\\000\\004\\000\\001\\000\\001' "MPA ID Rep Frame"
		wait
	EOF
	reply0=$(stat_of irdma "upcall CONNECT_REPLY")
	close0=$(stat_of irdma "upcall CLOSE")
	timeout 90 nc -l -p $PORT -e sh $T/mpa_peer.sh > "$log" 2>&1 &
	pid=$!
	await tcp_listening $PORT || why="nc did not listen"
	echo "connect $SIW_ADDR $PORT" > $D/irdma/ctl || why="${why:-connect failed}"
	await id_in active " connecting " || why="${why:-not connecting: $(cat $D/irdma/ids)}"
	echo "destroy all" > $D/irdma/ctl || why="${why:-destroy failed}"
	[ -n "$(cat $D/irdma/ids)" ] && why="${why:-still listed: $(cat $D/irdma/ids)}"
	stat_is irdma ids_alive 1 || why="${why:-cmkit no longer holds the id: $(all_stats)}"
	touch $T/go
	nothing_alive || why="${why:-objects left: $(all_stats)}"
	[ "$(stat_of irdma "upcall CONNECT_REPLY")" = $((${reply0:-0} + 1)) ] &&
		[ "$(stat_of irdma "upcall CLOSE")" = $((${close0:-0} + 1)) ] ||
		why="${why:-upcalls: $(grep upcall $D/irdma/stats | tr '\n' ' ')}"
	wait $pid
	[ -n "$why" ] && sed 's/^/    # /' "$log" /proc/net/tcp >> $T/diag
	result "$name" "$why"
}

# A failure injected by hand, through the kernel's fault attributes
# (cmkit/irdma/fail/) at one named step (cmkit/irdma/fail_steps), fails the
# connect command with that step's errno and leaves nothing behind.
irdma_connect_fails_cleanly_at_an_injected_fault() {
	name=irdma_connect_fails_cleanly_at_an_injected_fault
	why=
	PORT=$((PORT + 1))
	F=$D/irdma
	if [ ! -e $F/fail_steps ]; then
		skip $name "no $F/fail_steps (CONFIG_FAULT_INJECTION_DEBUG_FS)"
		return
	fi
	fired0=$(sed -n 's/^fired //p' $F/fail_steps)
	connects0=$(stat_of irdma connects_failed)
	echo connect > $F/fail_steps || why="fail_steps refused 'connect'"
	grep -qx "connect armed" $F/fail_steps || why="${why:-connect not armed: $(cat $F/fail_steps)}"
	echo 0 > $F/fail/verbose
	echo 1 > $F/fail/times
	echo 100 > $F/fail/probability
	if echo "connect $SIW_ADDR $PORT" > $F/ctl 2> $T/$name.err; then
		why="${why:-the connect succeeded with its TCP connect failing}"
	fi
	grep -qi "unreachable" $T/$name.err ||
		why="${why:-not the step's ENETUNREACH: $(cat $T/$name.err)}"
	echo none > $F/fail_steps
	echo 0 > $F/fail/probability
	[ "$(sed -n 's/^fired //p' $F/fail_steps)" = $((fired0 + 1)) ] ||
		why="${why:-fired: $(cat $F/fail_steps | tr '\n' ' ')}"
	[ "$(stat_of irdma connects_failed)" = $((connects0 + 1)) ] ||
		why="${why:-connects_failed did not count it}"
	[ -z "$(cat $F/ids)" ] || why="${why:-still listed: $(cat $F/ids)}"
	nothing_alive || why="${why:-objects left: $(all_stats)}"
	result $name "$why"
}

# rping over siw0 on IPv6, both ways: rping -c to cmkit's listener, and
# cmkit's connect to rping -s.
irdma_ipv6_rping_both_ways() {
	name=irdma_ipv6_rping_both_ways_siw0
	siw_absent "$name" && return
	PORT=$((PORT + 1))
	log=$T/$name.log
	why=
	echo "listen $SIW_ADDR6 $PORT accept cmkit-accepts" > $D/irdma/ctl || why="listen failed"
	timeout 90 rping -c -d -a "$SIW_ADDR6" -p $PORT -C 1 > "$log" 2>&1 &
	pid=$!
	await id_in passive " established " || why="${why:-not established: $(cat $D/irdma/ids)}"
	id_in passive "\\[$SIW_ADDR6\\]:$PORT <- \\[$SIW_ADDR6\\]:" ||
		why="${why:-not IPv6 addresses: $(cat $D/irdma/ids)}"
	echo "close all" > $D/irdma/ctl || why="${why:-close failed}"
	await id_in passive " closed " || why="${why:-not closed: $(cat $D/irdma/ids)}"
	wait $pid
	grep -q RDMA_CM_EVENT_ESTABLISHED "$log" || why="${why:-rping -c was not established}"
	echo "destroy all" > $D/irdma/ctl || why="${why:-destroy failed}"

	PORT=$((PORT + 1))
	timeout 90 rping -s -d -a "$SIW_ADDR6" -p $PORT -C 1 >> "$log" 2>&1 &
	pid=$!
	await tcp_listening $PORT || why="${why:-rping -s did not listen}"
	echo "connect $SIW_ADDR6 $PORT cmkit-hello" > $D/irdma/ctl || why="${why:-connect failed}"
	await id_in active " established " || why="${why:-not established: $(cat $D/irdma/ids)}"
	id_in active "-> \\[$SIW_ADDR6\\]:$PORT " || why="${why:-not IPv6: $(cat $D/irdma/ids)}"
	echo "close all" > $D/irdma/ctl || why="${why:-close failed}"
	await id_in active " closed " || why="${why:-not closed: $(cat $D/irdma/ids)}"
	wait $pid
	irdma_finish "" "$log"
	result "$name" "$why"
}

# cmkit to cmkit through the control plane, one knob set per case: the
# listener shows what it offers, both connections what they negotiated.
irdma_ctl_knobs() {	# <name> "<listen knobs>" "<connect knobs>" "<active>" ["<passive>"]
	name=$1 passive=${5:-$4}
	PORT=$((PORT + 1))
	why=
	echo "listen $SIW_ADDR $PORT accept $2" > $D/irdma/ctl || why="listen '$2' failed"
	echo "connect $SIW_ADDR $PORT $3" > $D/irdma/ctl || why="${why:-connect '$3' failed}"
	await id_in active " established .* $4$" ||
		why="${why:-active not '$4': $(cat $D/irdma/ids)}"
	await id_in passive " established .* $passive$" ||
		why="${why:-passive not '$passive': $(cat $D/irdma/ids)}"
	echo "close all" > $D/irdma/ctl || why="${why:-close failed}"
	await id_in active " closed " || why="${why:-not closed: $(cat $D/irdma/ids)}"
	await id_in passive " closed " || why="${why:-not closed: $(cat $D/irdma/ids)}"
	echo "ids: $(cat $D/irdma/ids)" | sed 's/^/    # /' >> $T/diag
	echo "destroy all" > $D/irdma/ctl || why="${why:-destroy failed}"
	nothing_alive || why="${why:-objects left: $(all_stats)}"
	result "$name" "$why"
}

irdma_ctl_knob_cases() {
	irdma_ctl_knobs irdma_ctl_p2p_send_rtr "p2p=send" "p2p=send" \
		"rev=2 p2p=send crc=0 fallback=0"
	irdma_ctl_knobs irdma_ctl_p2p_write_rtr_crc "p2p=write crc=1" "p2p=write" \
		"rev=2 p2p=write crc=1 fallback=0"
	irdma_ctl_knobs irdma_ctl_p2p_read_rtr_crc_ird_ord "ird=8 ord=8" "p2p=read crc=1 ird=8 ord=8" \
		"ird=8 ord=8 .*rev=2 p2p=read crc=1 fallback=0"
	irdma_ctl_knobs irdma_ctl_rev1 "rev=1" "rev=1" "rev=1 p2p=none crc=0 fallback=0"
	irdma_ctl_knobs irdma_ctl_fallback_to_rev1 "rev=1" "rev=2 fallback=1" \
		"rev=1 p2p=none crc=0 fallback=1" "rev=1 p2p=none crc=0 fallback=0"
	irdma_ctl_knobs irdma_ctl_p2p_any_to_any "" "p2p=any" "rev=2 p2p=write crc=0 fallback=0"
	irdma_ctl_knobs irdma_ctl_p2p_none "p2p=none" "p2p=none" "rev=2 p2p=none crc=0 fallback=0"
}

bad_irdma_commands_are_refused() {
	why=
	PORT=$((PORT + 1))
	KP=$((PORT + 1))	# nobody listens there: only the knobs can be wrong
	echo "listen $SIW_ADDR $PORT accept" > $D/irdma/ctl || why="listen failed"
	lid=$(sed -n 's/^\([0-9]*\) listener .*/\1/p' $D/irdma/ids)
	for cmd in "listen" "listen $SIW_ADDR" "listen $SIW_ADDR 0 accept" \
		   "listen $SIW_ADDR $PORT maybe" "listen $SIW_ADDR $PORT accept two words" \
		   "listen $SIW_ADDR $PORT accept" "listen 192.0.2.1 $PORT accept" \
		   "connect" "connect 10.1.2 5" "connect $SIW_ADDR 70000" \
		   "close" "close 999" "close x" "close $lid" "reset $lid" \
		   "destroy" "destroy 999" "frobnicate" "listen fd00:78::zz $KP accept" \
		   "listen $SIW_ADDR $KP accept rev=3" "listen $SIW_ADDR $KP accept p2p=maybe" \
		   "listen $SIW_ADDR $KP accept crc=2" "listen $SIW_ADDR $KP accept ird=16384" \
		   "listen $SIW_ADDR $KP accept fallback=1" "listen $SIW_ADDR $KP accept rev=1 p2p=write" \
		   "connect $SIW_ADDR $KP fallback=2" "connect $SIW_ADDR $KP ord=x" \
		   "connect $SIW_ADDR $KP one two" "connect $SIW_ADDR $KP color=red"; do
		if echo "$cmd" > $D/irdma/ctl 2>/dev/null; then
			why="${why:-'$cmd' was accepted}"
		fi
	done
	echo "destroy all" > $D/irdma/ctl || why="${why:-destroy failed}"
	nothing_alive || why="${why:-objects left: $(all_stats)}"
	PORT=$KP
	result bad_irdma_commands_are_refused "$why"
}

irdma_cases() {
	irdma_rping_client irdma_listener_accepts_rping_client_siw0 accept
	irdma_rping_client irdma_listener_rejects_rping_client_siw0 reject
	irdma_peer_client irdma_listener_accepts_peer_with_private_data_siw0 accept
	irdma_peer_client irdma_listener_rejects_peer_with_private_data_siw0 reject
	irdma_to_rping_server irdma_connects_rping_server_then_closes_siw0
	irdma_to_peer_server irdma_connects_peer_server_then_closes_siw0 accept
	irdma_to_peer_server irdma_connect_rejected_by_peer_server_siw0 reject
	irdma_destroyed_while_connecting_is_reset_once_up
	irdma_connect_fails_cleanly_at_an_injected_fault
	irdma_ipv6_rping_both_ways
	irdma_ctl_knob_cases
	bad_irdma_commands_are_refused
}

# ---- cmkit-peer against itself: RPC-over-RDMA NULL calls -------------------
#
# cmkit-peer call (a user-space RPC-over-RDMA client) against cmkit-peer
# serve --rpc on the same device: the credit window, each server knob as
# the client sees it, and each exit status.  No cmkit handler is involved.

# A check on a summary line: key=value (number or word) or key>number.
summary_has() {	# <log> <check>
	line=$(grep '"rpc":"summary"' "$1")
	case "$2" in
	*'>'*)
		v=$(echo "$line" | sed -n "s/.*\"${2%%>*}\":\([0-9]*\).*/\1/p")
		[ -n "$v" ] && [ "$v" -gt "${2#*>}" ] ;;
	*)
		echo "$line" | grep -qE "\"${2%%=*}\":(${2#*=}[,}]|\"${2#*=}\")" ;;
	esac
}

# peer_rpc <name> <addr> <call exit> "<serve args>" "<call args>"
#          "<call summary checks>" "<serve summary checks>"
peer_rpc() {
	name=$1 addr=$2 want=$3 sargs=$4 cargs=$5 cchecks=$6 schecks=$7
	siw_absent "$name" && return
	PORT=$((PORT + 1))
	slog=$T/$name.serve.log
	clog=$T/$name.call.log
	why=
	serve "$slog" --addr "$addr" --port $PORT --timeout 30 --rpc $sargs ||
		why="cmkit-peer serve did not listen"
	if [ -z "$why" ]; then
		cmkit-peer call --addr "$addr" --port $PORT $cargs > "$clog" 2>&1
		rc=$?
		[ "$rc" = "$want" ] || why="cmkit-peer call exited $rc, not $want"
	fi
	wait $PEER || why="${why:-cmkit-peer serve exited $?}"
	for c in $cchecks; do
		summary_has "$clog" "$c" || why="${why:-call summary lacks $c}"
	done
	for c in $schecks; do
		summary_has "$slog" "$c" || why="${why:-serve summary lacks $c}"
	done
	if [ -n "$why" ]; then
		sed 's/^/    # call: /' "$clog" | tail -n 20 >> $T/diag
		sed 's/^/    # serve: /' "$slog" | tail -n 20 >> $T/diag
	fi
	result "$name" "$why"
}

peer_rpc_cases() {	# <device> <addr>
	dev=$1 addr=$2
	peer_rpc peer_rpc_credits_64_$dev "$addr" 0 "--credits 64 --rpc-quiet" \
		"--count 200 --credits 64" \
		"status=ok accepted=200 unanswered=0 credits=64 max_outstanding>1" \
		"calls=200 success=200 errors=0 unsent=0"
	peer_rpc peer_rpc_credits_1_$dev "$addr" 0 "--credits 1" "--count 20 --credits 64" \
		"status=ok accepted=20 credits=1 max_outstanding=1" "calls=20 success=20"
	peer_rpc peer_rpc_credits_0_counts_as_1_$dev "$addr" 0 "--credits 0" \
		"--count 10 --credits 8" "status=ok accepted=10 last_grant=0 max_outstanding=1" \
		"calls=10"
	peer_rpc peer_rpc_err_vers_$dev "$addr" 3 "--rpc-error vers" "--count 5" \
		"status=rejected rejected=5 E_ERR_VERS=5" "calls=5 errors=5"
	peer_rpc peer_rpc_err_chunk_$dev "$addr" 3 "--rpc-error chunk" "--count 5" \
		"status=rejected rejected=5 E_ERR_CHUNK=5" "calls=5 errors=5"
	peer_rpc peer_rpc_dropped_call_times_out_$dev "$addr" 5 "--rpc-drop 3" \
		"--count 5 --timeout 3" "status=timeout accepted=4 unanswered=1" \
		"calls=5 dropped=1 success=4"
	peer_rpc peer_rpc_bad_xid_counted_and_dropped_$dev "$addr" 0 "--rpc-bad-xid" \
		"--count 5" "status=ok accepted=5 unknown_xid=1" "calls=5 bad_xid=1 replies=6"
	peer_rpc peer_rpc_server_disconnects_under_calls_$dev "$addr" 6 \
		"--rpc-disconnect-at 4" "--count 50 --credits 8" "status=disconnected" \
		"calls=4 dropped=1"
}

peer_rpc_rejections() {	# <device> <addr>: every RPC refusal and damaged reply
	dev=$1 addr=$2
	for r in prog:E_PROG_UNAVAIL progvers:E_PROG_MISMATCH proc:E_PROC_UNAVAIL \
		 garbage:E_GARBAGE_ARGS system:E_SYSTEM_ERR rpcvers:E_RPC_MISMATCH \
		 auth:E_AUTH_ERROR; do
		peer_rpc "peer_rpc_reject_${r%%:*}_$dev" "$addr" 3 "--rpc-reject ${r%%:*}" \
			"--count 3" "status=rejected rejected=3 ${r#*:}=3" "calls=3 errors=3"
	done
	peer_rpc peer_rpc_short_reply_malformed_$dev "$addr" 4 "--rpc-corrupt short" \
		"--count 3" "status=malformed malformed=3 E_SHORT=3" "calls=3"
	peer_rpc peer_rpc_xid_mismatch_malformed_$dev "$addr" 4 "--rpc-corrupt xid" \
		"--count 3" "status=malformed malformed=3 E_XID=3" "calls=3"
	peer_rpc peer_rpc_other_version_reply_dropped_$dev "$addr" 5 "--rpc-corrupt vers" \
		"--count 3 --timeout 3" "status=timeout dropped=1 unanswered=1" "calls=1"
}

# ---- the cases -------------------------------------------------------------

klog "    KTAP version 1"
klog "    # Subtest: $SUITE"

if [ "$SUITE" = cmkit_peer_selftest ]; then
# cmkit-peer against itself (RPC-over-RDMA NULL calls)
peer_rpc_cases rxe0 "$RXE_ADDR"
peer_rpc_cases siw0 "$SIW_ADDR"
peer_rpc_rejections rxe0 "$RXE_ADDR"
else

rpcrdma_to_peer rpcrdma_to_peer_with_rfc8797_data_rxe0 "$RXE_ADDR" 2048:3072 3072 2048
rpcrdma_to_peer rpcrdma_to_peer_with_rfc8797_data_siw0 "$SIW_ADDR" 2048:3072 3072 2048
rpcrdma_to_peer rpcrdma_to_peer_without_data_rxe0 "$RXE_ADDR" "" 1024 1024
rpcrdma_to_peer rpcrdma_to_peer_without_data_siw0 "$SIW_ADDR" "" 1024 1024
rpcrdma_to_rping rpcrdma_to_rping_server_rxe0 "$RXE_ADDR"
rpcrdma_to_rping rpcrdma_to_rping_server_siw0 "$SIW_ADDR"
rpcrdma_transport_pins_the_module
bad_commands_are_refused
rpcrdma_calls_cases rxe0 "$RXE_ADDR"
rpcrdma_calls_cases siw0 "$SIW_ADDR"
rpcrdma_calls_rejections
rpcrdma_call_in_flight_pins_the_module
rpcrdma_nfsd_cases
srpt_cases
bad_srpt_commands_are_refused
irdma_cases
fi

fails=$(echo "$RESULTS" | grep -c '^    not ok')
echo "KTAP version 1"
echo "1..1"
echo "    KTAP version 1"
echo "    # Subtest: $SUITE"
echo "    1..$N"
[ -f $T/diag ] && cat $T/diag
echo "$RESULTS" | sed '/^$/d'
if [ "$fails" -eq 0 ]; then echo "ok 1 $SUITE"; else echo "not ok 1 $SUITE"; fi
