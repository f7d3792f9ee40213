#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# KI-5 without cmkit: rxe0 deleted while rdma_cm connections over it are up.
# The removal destroys the connected ids; the IB CM's DREQ one end sends
# arrives on the other end, the same port, while ib_mad_port_close() runs,
# and a MAD receive handler that started before the port left
# ib_mad_port_list reposts on a MAD QP destroyed meanwhile (KASAN:
# slab-use-after-free in ib_mad_post_receive_mads).  Fixed by
# kernel-patches/<series>/0202-RDMA-mad-*.  Needs only iproute2 and rping.
# At most TRIES tries, each: rxe0 added, PAIRS rping pairs connected and
# streaming, rxe0 deleted.

TRIES=${TRIES:-40}
PAIRS=${PAIRS:-6}
ADDR=10.77.0.1

ip link set lo up
ip link add d0 type dummy && ip addr add $ADDR/24 dev d0 && ip link set d0 up || exit 1

# Poll (0.1 s steps, at most <n> of them) until a command succeeds.
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
listening() { [ "$(rdma res show cm_id 2>/dev/null | grep -c 'state LISTEN')" -ge "$PAIRS" ]; }
# rping's connected ids over rxe0 (both ends of each pair).
connected() { [ "$(rdma res show cm_id 2>/dev/null | grep -c 'state CONNECT')" -ge $((2 * PAIRS)) ]; }

i=1
while [ $i -le $TRIES ]; do
	echo "ki-repro: try $i"
	rdma link add rxe0 type rxe netdev d0 || exit 1
	poll 300 active || { echo "ki-repro: rxe0 not ACTIVE"; exit 1; }
	pids=
	p=0
	while [ $p -lt $PAIRS ]; do
		rping -s -a $ADDR -p $((7000 + p)) -C 1000000 -S 4096 > /dev/null 2>&1 &
		pids="$pids $!"
		p=$((p + 1))
	done
	poll 100 listening || echo "ki-repro: not every server listens"
	p=0
	while [ $p -lt $PAIRS ]; do
		rping -c -a $ADDR -p $((7000 + p)) -C 1000000 -S 4096 > /dev/null 2>&1 &
		pids="$pids $!"
		p=$((p + 1))
	done
	poll 100 connected || echo "ki-repro: not every pair connected: $(rdma res show cm_id | grep -c CONNECT) ids"
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
