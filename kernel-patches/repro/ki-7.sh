#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# KI-7: ib_srp logged in over rxe0 with writes in flight, rxe0 deleted.
# srp_remove_work() -> srp_remove_target() calls scsi_remove_host(), which
# frees the SCSI tag set (and with it every srp_request), before
# srp_free_ch_ib() -> srp_destroy_qp() polls the send CQ: a flushed
# registration WR's wr_cqe points into a freed srp_request (KASAN:
# slab-use-after-free in __ib_process_cq).  Fixed by
# kernel-patches/<series>/0203-RDMA-srp-*.
#
# Not without cmkit: the test kernels build no other SRP target (no
# ib_srpt, no target core), so cmkit.ko serves as the target here, and
# only as that: the bug's frames are ib_srp's and the RDMA core's.  At
# most TRIES tries, each: rxe0 added, a login with two channels, writes
# under way, rxe0 deleted.

TRIES=${TRIES:-12}
ADDR=10.77.0.1
D=/sys/kernel/debug/cmkit
SRP_HOST=/sys/class/infiniband_srp/srp-rxe0-1
RPORTS=/sys/class/srp_remote_ports

ip link set lo up
ip link add d0 type dummy && ip addr add $ADDR/24 dev d0 && ip link set d0 up || exit 1

poll() {	# <n> <command...>
	_n=$1
	shift
	while ! "$@" 2>/dev/null; do
		_n=$((_n - 1))
		[ $_n -le 0 ] && return 1
		sleep 0.1
	done
}
active() { rdma link show rxe0/1 | grep -q "state ACTIVE"; }
target() { grep -q '^rxe0 .*rdma_cm_port=[1-9]' $D/srpt/targets; }
disk() { DISK=$(ls /sys/class/scsi_disk/*/device/block 2>/dev/null | head -n 1); [ -n "$DISK" ]; }
written() { awk '{ print $7 }' /sys/block/$DISK/stat; }
flowing() { [ "$(written)" -gt "$W0" ]; }
no_rports() { [ -z "$(ls $RPORTS 2>/dev/null)" ]; }

rdma link add rxe0 type rxe netdev d0 || exit 1
poll 300 active || { echo "ki-repro: rxe0 not ACTIVE"; exit 1; }
insmod /lib/cmkit/cmkit.ko || exit 1
i=1
while [ $i -le $TRIES ]; do
	echo "ki-repro: try $i"
	poll 300 active && poll 300 target && poll 300 test -e $SRP_HOST/add_target ||
		{ echo "ki-repro: no rxe0 target or SRP host"; exit 1; }
	line=$(grep '^rxe0 ' $D/srpt/targets)
	port=$(echo "$line" | sed -n 's/.*rdma_cm_port=\([0-9]*\).*/\1/p')
	tpid=$(echo "$line" | sed -n 's/.*target_port_id=\([0-9a-f]*\).*/\1/p')
	echo "id_ext=$(echo $tpid | cut -c1-16),ioc_guid=$(echo $tpid | cut -c17-32),dest=$ADDR:$port,ch_count=2" \
		> $SRP_HOST/add_target || { echo "ki-repro: login failed"; exit 1; }
	poll 300 disk || { echo "ki-repro: no disk"; exit 1; }
	for r in $(ls $RPORTS); do
		echo 2 > $RPORTS/$r/fast_io_fail_tmo
		echo 20 > $RPORTS/$r/reconnect_delay
	done
	W0=$(written)
	(while dd if=/dev/zero of=/dev/$DISK bs=65536 count=64 oflag=direct 2>/dev/null; do :; done) &
	io=$!
	poll 300 flowing || echo "ki-repro: no writes under way"
	rdma link delete rxe0 || exit 1
	poll 1200 no_rports || { echo "ki-repro: ib_srp kept its remote port"; exit 1; }
	kill -9 $io 2>/dev/null
	wait
	rdma link add rxe0 type rxe netdev d0 || exit 1
	i=$((i + 1))
done
