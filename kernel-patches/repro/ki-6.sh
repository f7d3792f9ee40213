#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# KI-6: iw_cm drops a CONNECT_REQUEST queued on a listener being destroyed
# (IWCM_F_DROP_EVENTS in cm_work_handler()) without rejecting the
# provider's new connection: siw's passive cep keeps the reference it holds
# until accept or reject.  Clients connect while their server is killed
# (rdma_destroy_id() of the listener); once siw0 is deleted the leaked ceps
# are unreferenced, and kmemleak reports them: run on a kmemleak kernel
# (KVER=6.12-debug).  Bounded: 10 tries of 8 clients each.
ip link add d3 type dummy
ip addr add 10.80.0.1/24 dev d3
ip link set d3 up
rdma link add siw0 type siw netdev d3
for i in 1 2 3 4 5 6 7 8 9 10; do
	echo "ki-repro: try $i"
	rping -s -P -a 10.80.0.1 -p 7005 > /dev/null 2>&1 &
	s=$!
	usleep 300000
	for j in 1 2 3 4 5 6 7 8; do
		timeout 30 rping -c -a 10.80.0.1 -p 7005 -C 1 -S 64 > /dev/null 2>&1 &
	done
	usleep $((i * 20000))
	kill -9 $s 2> /dev/null
	wait
done
timeout 60 rdma link delete siw0 || echo "ki-repro: rdma link delete siw0 did not end"
if [ -w /sys/kernel/debug/kmemleak ]; then
	sleep 6
	echo scan > /sys/kernel/debug/kmemleak
	echo scan > /sys/kernel/debug/kmemleak
fi
