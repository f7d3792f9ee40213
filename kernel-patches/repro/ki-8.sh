#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# KI-8: siw never puts a passive endpoint's own reference when its peer
# closes before sending the MPA request (SIW_CM_WORK_PEER_CLOSE in
# SIW_EPSTATE_AWAIT_MPAREQ): the cep and its work elements stay on the
# device's cep list, unreferenced once siw0 is deleted.  Plain TCP
# connections to rping's siw listener, each held 0.2 s (so siw's accept
# work takes it off the queue first) and closed without a request; then
# the device goes and kmemleak scans: run on a kmemleak kernel
# (KVER=6.12-debug).  Bounded: 5 tries of 8 connections.
ip link add d4 type dummy
ip addr add 10.81.0.1/24 dev d4
ip link set d4 up
rdma link add siw0 type siw netdev d4
rping -s -P -a 10.81.0.1 -p 7008 > /dev/null 2>&1 &
s=$!
usleep 500000
for i in 1 2 3 4 5; do
	echo "ki-repro: try $i"
	for j in 1 2 3 4 5 6 7 8; do
		usleep 200000 | timeout 5 nc 10.81.0.1 7008 > /dev/null 2>&1
	done
done
kill $s 2> /dev/null
wait $s
timeout 60 rdma link delete siw0 || echo "ki-repro: rdma link delete siw0 did not end"
if [ -w /sys/kernel/debug/kmemleak ]; then
	sleep 6
	echo scan > /sys/kernel/debug/kmemleak
	echo scan > /sys/kernel/debug/kmemleak
fi
