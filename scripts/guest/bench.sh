#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# cmkit's benchmarks in the guest (make bench: /init runs this with
# cmkit.mode=bench after rxe0 and siw0 were created and cmkit.ko loaded).
# Every comparison is measured in this one boot, both sides in turn, the
# side that goes first alternating from one repetition to the next.
#
# Environment: RXE_ADDR, SIW_ADDR.  Kernel command line:
#   cmkit.bench=key:value,...   n (CM churn connections on rxe0), n_siw
#                               (on siw0), reps, irdma_nodes, irdma_events
#                               (per node), rpc_calls, srp_mb (MiB each dd
#                               moves), nfs_reads (reads of the 1 MiB file
#                               per NFS measurement), items (cm, irdma,
#                               rpc, srp, nfs: which to run)
#   cmkit.bench_kmods=a,b       kernel modules to load first, in order
#                               (/lib/cmkit/<name>.ko: LIO and ib_srpt)
#
# Prints status lines on stdout (init sends them to the status port):
#   CMKIT bench-clock <clocksource> <available clocksources...>
#   CMKIT bench-begin <item> <impl> <dev> <rep> [<what>]
#   ...               what the measurement printed (a JSON line, cmtime's
#                     table, cmkit-peer's JSON lines, or "seconds bytes")
#   CMKIT bench-end <item> <impl> <dev> <rep> <exit status>
#   CMKIT bench-na <item> <impl> <reason>   not available yet, and why
#   CMKIT bench-error <what>

. /usr/lib/cmkit/lib.sh

T=/tmp/bench
B=/sys/kernel/debug/cmkit_bench
rm -rf $T
mkdir -p $T
PORT=40000
TO=600		# bound of any one measurement, seconds

N=300 N_SIW=64 REPS=5 IRDMA_NODES=100 IRDMA_EVENTS=10000 RPC_CALLS=2000 SRP_MB=64
NFS_READS=64 ITEMS=cm,irdma,rpc,srp,nfs KMODS=
for arg in $(cat /proc/cmdline); do
	case $arg in
	cmkit.bench=*)
		old_ifs=$IFS
		IFS=,
		for kv in ${arg#cmkit.bench=}; do
			v=${kv#*:}
			case $kv in
			n:*) N=$v ;;
			n_siw:*) N_SIW=$v ;;
			reps:*) REPS=$v ;;
			irdma_nodes:*) IRDMA_NODES=$v ;;
			irdma_events:*) IRDMA_EVENTS=$v ;;
			rpc_calls:*) RPC_CALLS=$v ;;
			srp_mb:*) SRP_MB=$v ;;
			nfs_reads:*) NFS_READS=$v ;;
			items:*) ITEMS=$(echo "$v" | tr + ,) ;;
			esac
		done
		IFS=$old_ifs
		;;
	cmkit.bench_kmods=*) KMODS=$(echo "${arg#cmkit.bench_kmods=}" | tr , ' ') ;;
	esac
done

say() { echo "CMKIT $*"; }
begin() { say bench-begin "$@"; }
end() { say bench-end "$@"; }
na() { say bench-na "$@"; }
want() { case ",$ITEMS," in *",$1,"*) return 0 ;; esac; return 1; }
uptime_s() { cut -d' ' -f1 /proc/uptime; }
has_line() { grep -q "$2" "$1"; }

CS=/sys/devices/system/clocksource/clocksource0
say bench-clock "$(cat $CS/current_clocksource)" "$(cat $CS/available_clocksource)"

# ib_srpt's service GUID (its IB CM service id, and both halves of the
# target port id it accepts): not the node GUID, which cmkit's srpt listens on.
SRPT_GUID=0002c903000b0002
for m in $KMODS; do
	args=
	[ "$m" = ib_srpt ] && args="srpt_service_guid=$SRPT_GUID"
	# shellcheck disable=SC2086
	insmod "/lib/cmkit/$m.ko" $args || say bench-error "insmod $m"
done
insmod /lib/cmkit/cmkit_bench.ko || say bench-error "insmod cmkit_bench"

# Run "$@" in the background with a bound; its pid in $BG.
bg_bounded() {
	"$@" &
	BG=$!
	( sleep $TO; kill $BG 2>/dev/null ) &
	BG_WD=$!
}
bg_wait() {
	wait $BG
	bg_rc=$?
	kill $BG_WD 2>/dev/null
	return $bg_rc
}

# ---- 2. CM churn: cmkit's in-kernel peer against rdma-core's cmtime --------

# An rdma_cm id listens on <addr>:<port> (rdma res lists it).
cm_listening() {
	rdma res show cm_id 2>/dev/null | grep -q "src-addr $1:$2 "
}

cm_cmtime() {	# <dev> <addr> <rep> <n>
	PORT=$((PORT + 1))
	bg_bounded cmtime -b "$2" -p $PORT -c "$4" > $T/cmtime-server.log 2>&1
	if ! await cm_listening "$2" $PORT; then
		say bench-error "cmtime's server did not listen on $2:$PORT"
		kill $BG 2>/dev/null
		bg_wait
		return
	fi
	begin cm cmtime "$1" "$3"
	timeout $TO cmtime -s "$2" -p $PORT -c "$4" 2>&1
	rc=$?
	# cmtime's server (rdma-core 44) does not exit when its client is done:
	# the client has its table, so end it.
	kill $BG 2>/dev/null
	bg_wait
	end cm cmtime "$1" "$3" $rc
}

cm_cmkit() {	# <dev> <addr> <rep> <n>
	PORT=$((PORT + 1))
	begin cm cmkit "$1" "$3"
	rc=0
	echo "cm $2 $PORT $4" > $B/run || rc=1
	cat $B/result
	end cm cmkit "$1" "$3" $rc
}

# siw0 runs both sides at its own N (n_siw, default 64): in this guest
# cmtime cannot hold more than 71 siw QPs at once (N=100: 29 "failure
# creating qp" lines, N=300: 229; first ENOENT, then EINVAL) while cmkit
# makes all of them, and 100 cmkit connections against 71 cmtime ones
# were no comparison.  rxe0 keeps N.
if want cm; then
	for dev in rxe0 siw0; do
		if [ $dev = rxe0 ]; then
			addr=$RXE_ADDR n=$N
		else
			addr=$SIW_ADDR n=$N_SIW
		fi
		r=1
		while [ $r -le "$REPS" ]; do
			if [ $((r % 2)) = 1 ]; then
				cm_cmkit $dev "$addr" $r "$n"
				cm_cmtime $dev "$addr" $r "$n"
			else
				cm_cmtime $dev "$addr" $r "$n"
				cm_cmkit $dev "$addr" $r "$n"
			fi
			r=$((r + 1))
		done
	done
fi

# ---- 5. the irdma event pipeline against one work item per event ----------

# concurrent: handled while posted; backlog: all posted first (the
# workqueue held up), then drained (bench_irdma.c).
irdma_run() {	# <impl> <rep> <mode>
	begin irdma "$1" - "$2" "$3"
	rc=0
	echo "irdma $IRDMA_NODES $IRDMA_EVENTS $1 $3" > $B/run || rc=1
	cat $B/result
	end irdma "$1" - "$2" $rc
}

if want irdma; then
	r=1
	while [ $r -le "$REPS" ]; do
		for mode in concurrent backlog; do
			if [ $((r % 2)) = 1 ]; then
				irdma_run cmkit $r $mode
				irdma_run baseline $r $mode
			else
				irdma_run baseline $r $mode
				irdma_run cmkit $r $mode
			fi
		done
		r=$((r + 1))
	done
fi

# ---- 3. RPC NULL round trip: cmkit's endpoint against cmkit-peer call ------

# cmkit-peer serve --rpc on rxe0; its log in $1.  One call in flight.
rpc_serve() {	# <log>
	PORT=$((PORT + 1))
	bg_bounded cmkit-peer serve --addr "$RXE_ADDR" --port $PORT --rpc --rpc-quiet \
		--credits 1 --timeout 120 > "$1" 2>&1
	await has_line "$1" listening
}

rpc_user() {	# <rep>
	rpc_serve $T/rpc-serve.log || { say bench-error "cmkit-peer serve did not listen"; return; }
	begin rpc cmkit-peer rxe0 "$1"
	timeout $TO cmkit-peer call --addr "$RXE_ADDR" --port $PORT --count "$RPC_CALLS" \
		--credits 1 --json-latencies --timeout 60 2>&1
	rc=$?
	end rpc cmkit-peer rxe0 "$1" $rc
	bg_wait
}

# The in-kernel side needs the rpcrdma RPC transport: a "call <n> <count>"
# control command, and the calls' latencies (as cmkit-peer call's summary:
# "rtt_us" and "latencies_us") in cmkit/rpcrdma/calls.
RPC_MISSING=
rpc_kernel() {	# <rep>
	rpc_serve $T/rpc-kserve.log || { say bench-error "cmkit-peer serve did not listen"; return; }
	if ! echo "connect $RXE_ADDR $PORT" > $D/rpcrdma/ctl; then
		RPC_MISSING="cmkit's rpcrdma endpoint did not connect to cmkit-peer serve --rpc"
	else
		x=$(xprt_nr $PORT)
		if ! echo "call $x $RPC_CALLS" > $D/rpcrdma/ctl 2>/dev/null; then
			RPC_MISSING="cmkit's rpcrdma control plane refuses 'call <n> <count>' (the RPC transport of the rpcrdma calls issue)"
		elif [ ! -r $D/rpcrdma/calls ]; then
			RPC_MISSING="'call' ran, but cmkit/rpcrdma/calls (the calls' latencies) is missing"
		else
			begin rpc cmkit rxe0 "$1"
			cat $D/rpcrdma/calls
			end rpc cmkit rxe0 "$1" 0
		fi
		echo "destroy $x" > $D/rpcrdma/ctl
	fi
	kill $BG 2>/dev/null
	bg_wait
}

# Kernel first in odd repetitions, user space first in even ones: neither
# side always runs on the warmer system.  Once the kernel side is found
# missing, only user space runs.
if want rpc; then
	r=1
	while [ $r -le "$REPS" ]; do
		if [ $((r % 2)) = 1 ]; then
			[ -z "$RPC_MISSING" ] && rpc_kernel $r
			rpc_user $r
		else
			rpc_user $r
			[ -z "$RPC_MISSING" ] && rpc_kernel $r
		fi
		r=$((r + 1))
	done
	[ -n "$RPC_MISSING" ] && na rpc cmkit "$RPC_MISSING"
fi

# ---- 4. SRP throughput: ib_srp to cmkit's RAM LUN and to ib_srpt + LIO -----

SRPT_PORT=5556			# ib_srpt's rdma_cm port: not cmkit's (5555)
CFG=/sys/kernel/config/target

# ib_srpt with a LIO RAM disk (rd_mcp) of $SRP_MB MiB behind LUN 0 of rxe0's
# port, any initiator from $RXE_ADDR allowed.
lio_setup() {
	[ -d /sys/module/ib_srpt ] || { echo "ib_srpt is not loaded (the bench kernel has it as a module)"; return 1; }
	gid=$(cat /sys/class/infiniband/rxe0/ports/1/gids/0)
	wwn=$(echo "$gid" | cut -d: -f5-8)
	tpg=$CFG/srpt/$wwn/tpgt_1
	mkdir -p $CFG/core/rd_mcp_0/ramdisk &&
		echo "rd_pages=$((SRP_MB * 256))" > $CFG/core/rd_mcp_0/ramdisk/control &&
		echo 1 > $CFG/core/rd_mcp_0/ramdisk/enable &&
		mkdir -p $tpg/lun/lun_0 &&
		ln -s $CFG/core/rd_mcp_0/ramdisk $tpg/lun/lun_0/ramdisk &&
		mkdir -p "$tpg/acls/$RXE_ADDR" &&
		mkdir -p "$tpg/acls/$RXE_ADDR/lun_0" &&
		ln -s $tpg/lun/lun_0 "$tpg/acls/$RXE_ADDR/lun_0/lun_0" &&
		echo $SRPT_PORT > $CFG/srpt/discovery_auth/rdma_cm_port &&
		echo 1 > $tpg/enable || { echo "configfs set-up of ib_srpt + rd_mcp failed"; return 1; }
}

disks() {
	for d in /sys/block/sd*; do
		[ -e "$d" ] && echo "${d#/sys/block/}"
	done
}

# A disk that was not there before the login, in $DISK.
find_new_disk() {
	DISK=
	for d in $(disks); do
		grep -qx "$d" $T/disks.before || DISK=$d
	done
	[ -n "$DISK" ]
}

# ib_srp logs in over rdma_cm; the SCSI disk it finds, in $DISK.
srp_login() {	# <id_ext> <ioc_guid> <port>
	disks > $T/disks.before
	echo "id_ext=$1,ioc_guid=$2,dest=$RXE_ADDR:$3" > /sys/class/infiniband_srp/srp-rxe0-1/add_target &&
		await find_new_disk && find_new_disk
}

# One sequential dd with direct I/O: "seconds bytes" (/proc/uptime's 10 ms
# steps: each dd moves $SRP_MB MiB, which lasts seconds).
srp_dd() {	# <impl> <disk> <rep> <read|write> <block KiB> <count>
	impl=$1 disk=$2 rep=$3 dir=$4 kib=$5 count=$6
	begin srp "$impl" rxe0 "$rep" "$dir ${kib}K"
	t0=$(uptime_s)
	if [ "$dir" = read ]; then
		dd if="/dev/$disk" of=/dev/null bs=$((kib * 1024)) count="$count" iflag=direct 2>/dev/null
	else
		dd if=/dev/zero of="/dev/$disk" bs=$((kib * 1024)) count="$count" oflag=direct 2>/dev/null
	fi
	rc=$?
	t1=$(uptime_s)
	awk -v a="$t0" -v b="$t1" -v n=$((kib * 1024 * count)) 'BEGIN { printf "%.2f %d\n", b - a, n }'
	end srp "$impl" rxe0 "$rep" $rc
}

srp_target_run() {	# <impl> <disk> <rep>
	srp_dd "$1" "$2" "$3" write 1024 "$SRP_MB"
	srp_dd "$1" "$2" "$3" read 1024 "$SRP_MB"
	srp_dd "$1" "$2" "$3" write 4 $((SRP_MB * 64))
	srp_dd "$1" "$2" "$3" read 4 $((SRP_MB * 64))
}

if want srp; then
	LIO_DISK=''
	CMKIT_DISK=''
	# cmkit's LUN 0 (the SRP target data path) is a RAM disk of
	# cmkit.srpt_lun_mib MiB: both sides move what fits in it.
	LUN_MIB=$(cat /sys/module/cmkit/parameters/srpt_lun_mib 2>/dev/null)
	if [ -n "$LUN_MIB" ] && [ "$LUN_MIB" -lt "$SRP_MB" ]; then
		say bench-note "srp: $SRP_MB MiB per dd asked, cmkit's LUN has $LUN_MIB: both sides move $LUN_MIB"
		SRP_MB=$LUN_MIB
	fi
	if why=$(lio_setup); then
		srp_login $SRPT_GUID $SRPT_GUID $SRPT_PORT && LIO_DISK=$DISK
		[ -n "$LIO_DISK" ] || na srp lio "ib_srp found no disk behind ib_srpt"
	else
		na srp lio "$why"
	fi
	# cmkit's target on rxe0 (cmkit/srpt/targets) and, once the data path
	# exists, its LUN (cmkit.srpt_lun_mib).
	line=$(grep '^rxe0 ' $D/srpt/targets 2>/dev/null)
	if [ -z "$line" ]; then
		na srp cmkit "cmkit's srpt lists no target on rxe0"
	elif [ -z "$LUN_MIB" ]; then
		na srp cmkit "cmkit's srpt has no LUN behind its target (the SRP target data path: the SRP target issue)"
	else
		tpid=$(echo "$line" | sed -n 's/.*target_port_id=\([0-9a-f]*\).*/\1/p')
		cport=$(echo "$line" | sed -n 's/.*rdma_cm_port=\([0-9]*\).*/\1/p')
		id_ext=$(echo "$tpid" | cut -c1-16)
		ioc=$(echo "$tpid" | cut -c17-32)
		srp_login "$id_ext" "$ioc" "$cport" && CMKIT_DISK=$DISK
		[ -n "$CMKIT_DISK" ] || na srp cmkit "ib_srp found no disk behind cmkit's target"
	fi
	r=1
	while [ $r -le "$REPS" ]; do
		if [ $((r % 2)) = 1 ]; then
			[ -n "$CMKIT_DISK" ] && srp_target_run cmkit "$CMKIT_DISK" $r
			[ -n "$LIO_DISK" ] && srp_target_run lio "$LIO_DISK" $r
		else
			[ -n "$LIO_DISK" ] && srp_target_run lio "$LIO_DISK" $r
			[ -n "$CMKIT_DISK" ] && srp_target_run cmkit "$CMKIT_DISK" $r
		fi
		r=$((r + 1))
	done
	# Log out of every target before the modules go.
	for p in /sys/class/srp_remote_ports/*/delete; do
		[ -e "$p" ] && echo 1 > "$p"
	done
fi

# ---- 6. NFS READ throughput: cmkit's nfs4 verb against the kernel's client -

# The guest's nfsd (lib.sh: nfsd_start, nfsd_export) exports $NFS_FILE
# (1 MiB of nfs_pattern) over RDMA; both sides read it whole from rxe0's
# address, $NFS_READS times per measurement ("seconds bytes", /proc/uptime's
# 10 ms steps), at 1 and at 8 READs in flight, every READ going to the
# server:
#   cmkit   "nfs4 <n> read $NFS_FILE <in flight>" per read of the file (a
#           LOOKUP, then READs of nfsd's READ size through write chunks,
#           the data checked: rpcrdma/ctl.c);
#   kernel  the NFS client mounted vers=4.0,proto=rdma; one dd with
#           O_DIRECT per read of the file (an OPEN and a CLOSE, then the
#           READs): at 1 in flight bs = the mount's rsize, each read() one
#           READ waited for; at 8 bs = 1 MiB, which the client's direct I/O
#           splits into READs of at most rsize sent together (a note per
#           depth counts them: the client sent 9 and 16 READs per MiB
#           where cmkit sends 8, perhaps as busybox dd's buffer is not
#           page-aligned).
# Each side's figure so carries its own per-file cost: cmkit's LOOKUP and
# its crc32c of the data, the client's OPEN, CLOSE and dd's exec.
NFS_MNT=/mnt/bench-nfs

nfs_setup() {	# why not, on stdout
	: > $T/nfsd.err
	grep -qw nfsd /proc/filesystems || { echo "the bench kernel has no nfsd"; return 1; }
	nfsd_start $T/nfsd.err && nfsd_export $T/nfsd.err "$RXE_ADDR" ||
		{ echo "nfsd: $(cat $T/nfsd.err)"; return 1; }
	# No READ with the bypass stateid and no OPEN in the grace period (10 s).
	await nfsd_grace_over || { echo "nfsd's grace period did not end"; return 1; }
}

nfs_kernel_mount() {	# why not, on stdout
	mkdir -p $NFS_MNT
	nfs_rdma_mount "$RXE_ADDR" $NFS_MNT $T/nfs-mount.err ||
		{ echo "mount of $RXE_ADDR:/ over RDMA: $(cat $T/nfs-mount.err)"; return 1; }
	grep " $NFS_MNT nfs4 .*proto=rdma" /proc/mounts | grep -q "rsize=" ||
		{ echo "not NFSv4 over RDMA with an rsize: $(grep " $NFS_MNT " /proc/mounts)"; return 1; }
}

nfs_kernel_read() {	# <in flight>
	bs=1048576
	[ "$1" = 1 ] && bs=$NFS_RSIZE
	dd if=$NFS_MNT/$NFS_FILE of=/dev/null bs=$bs iflag=direct 2>/dev/null
}

nfs_cmkit_read() {	# <in flight>
	echo "nfs4 $NFS_X read $NFS_FILE $1" > $D/rpcrdma/ctl
}

nfs_run() {	# <impl> <rep> <in flight>
	begin nfs "$1" rxe0 "$2" "depth $3"
	i=0 rc=0
	[ "$1" = kernel ] && k0=$(nfs_kernel_reads)
	t0=$(uptime_s)
	while [ $i -lt "$NFS_READS" ] && [ $rc = 0 ]; do
		"nfs_$1_read" "$3"
		rc=$?
		i=$((i + 1))
	done
	t1=$(uptime_s)
	awk -v a="$t0" -v b="$t1" -v n=$((NFS_FILE_SIZE * i)) 'BEGIN { printf "%.2f %d\n", b - a, n }'
	[ "$1" = cmkit ] && grep "^$NFS_X " $D/rpcrdma/xprts
	if [ "$1" = kernel ]; then
		k1=$(nfs_kernel_reads)
		echo "READs $((${k1:-0} - ${k0:-0}))"
		echo $((${k1:-0} - ${k0:-0})) >> $T/nfs-kernel-reads-$3
	fi
	end nfs "$1" rxe0 "$2" $rc
}

# The client's READ RPCs (its per-mount counts), for a note.
nfs_kernel_reads() {
	awk -v m=" $NFS_MNT " 'index($0, m) && /^device / { on = 1; next }
		/^device / { on = 0 } on && $1 == "READ:" { print $2 }' /proc/self/mountstats
}

if want nfs; then
	NFS_X='' NFS_KERNEL=''
	if why=$(nfs_setup); then
		if echo "connect $RXE_ADDR $NFS_PORT" > $D/rpcrdma/ctl; then
			NFS_X=$(xprt_nr $NFS_PORT)
			# Untimed: the first read finds nfsd's READ size (nfs4_rsize=).
			nfs_cmkit_read 1 || { na nfs cmkit "nfs4 read failed: $(grep "^$NFS_X " $D/rpcrdma/xprts)"; NFS_X=''; }
		else
			na nfs cmkit "cmkit's rpcrdma endpoint did not connect to nfsd"
		fi
		# In a subshell for its reason; the mount stays.
		if why=$(nfs_kernel_mount); then
			NFS_RSIZE=$(sed -n "s|.* $NFS_MNT nfs4 .*rsize=\([0-9]*\).*|\1|p" /proc/mounts)
			NFS_KERNEL=1
			nfs_kernel_read 1 || { na nfs kernel "dd of $NFS_MNT/$NFS_FILE failed"; NFS_KERNEL=''; }
		else
			na nfs kernel "$why"
		fi
	else
		na nfs cmkit "$why"
		na nfs kernel "$why"
	fi
	[ -n "$NFS_KERNEL" ] && say bench-note "nfs: the client's rsize $NFS_RSIZE, nfsd's max_block_size $(cat $NFSD/max_block_size)"
	r=1
	while [ $r -le "$REPS" ]; do
		for depth in 1 8; do
			if [ $((r % 2)) = 1 ]; then
				[ -n "$NFS_X" ] && nfs_run cmkit $r $depth
				[ -n "$NFS_KERNEL" ] && nfs_run kernel $r $depth
			else
				[ -n "$NFS_KERNEL" ] && nfs_run kernel $r $depth
				[ -n "$NFS_X" ] && nfs_run cmkit $r $depth
			fi
		done
		r=$((r + 1))
	done
	if [ -n "$NFS_KERNEL" ]; then
		for depth in 1 8; do
			reads=$(awk '{ n += $1 } END { print n + 0 }' $T/nfs-kernel-reads-$depth 2>/dev/null)
			say bench-note "nfs: at $depth in flight the kernel client sent $reads READs for $((REPS * NFS_READS)) MiB"
		done
		umount $NFS_MNT || umount -l $NFS_MNT
	fi
	[ -n "$NFS_X" ] && echo "destroy $NFS_X" > $D/rpcrdma/ctl
	nfsd_stop
fi

rmmod cmkit_bench || say bench-error "rmmod cmkit_bench"
exit 0
