#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# KI-1 without cmkit: rxe0 deleted while rdma_cm ids over it are being made
# and torn down.  Each id holds a reference to a GID table entry of rxe0;
# a reference dropped after ib_cache_cleanup_one() flushed ib_wq queues
# free_gid_work() again, and ib_device_release() can free the GID table
# first (WARN "GID entry ref leak", then a NULL pointer dereference in
# free_gid_work()).  Fixed by kernel-patches/<series>/0201-RDMA-core-*.
# Needs only iproute2 and rping.  At most TRIES tries, each: rxe0 added,
# PAIRS rping pairs connecting over and over (-C 1: one ping, then
# disconnect and connect again), rxe0 deleted in the middle of it.
#
# The same removal also meets KI-5 (a MAD reposted on a destroyed MAD QP):
# on a kernel without 0202 the first splat may be KI-5's, not KI-1's.

TRIES=${TRIES:-40}
PAIRS=${PAIRS:-6}
ADDR=10.77.0.1

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
some_ids() { [ "$(rdma res show cm_id 2>/dev/null | wc -l)" -ge "$PAIRS" ]; }

# One client's loop: connect, one ping, disconnect, until rxe0 is gone.
churn() {	# <port>
	while [ -e /sys/class/infiniband/rxe0 ]; do
		rping -c -a $ADDR -p "$1" -C 1 -S 64 > /dev/null 2>&1
	done
}

i=1
while [ $i -le $TRIES ]; do
	echo "ki-repro: try $i"
	rdma link add rxe0 type rxe netdev d0 || exit 1
	poll 300 active || { echo "ki-repro: rxe0 not ACTIVE"; exit 1; }
	pids=
	p=0
	while [ $p -lt $PAIRS ]; do
		# -P: a persistent server, one thread per connection.
		rping -s -P -a $ADDR -p $((7100 + p)) -C 1 -S 64 > /dev/null 2>&1 &
		pids="$pids $!"
		churn $((7100 + p)) &
		pids="$pids $!"
		p=$((p + 1))
	done
	poll 100 some_ids || echo "ki-repro: fewer than $PAIRS rdma_cm ids up"
	sleep 0.$((i % 10))	# the removal at a different point of the churn each try
	# rxe has no disassociate_ucontext: the unregistration waits in
	# ib_uverbs_remove_one() for rping's verbs files to close.  Kill
	# rping once the removal has begun (its ids are destroyed by the
	# exit, the IB CM's DREQs go out while the device goes away).
	rdma link delete rxe0 &
	del=$!
	sleep 0.$((i % 5 + 1))	# not synchronisation: where the kill lands
	kill -9 $pids 2>/dev/null
	killall -9 rping 2>/dev/null	# the guest's rpings are all this script's
	wait $del || exit 1
	wait
	i=$((i + 1))
done
