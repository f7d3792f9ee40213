#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# KI-2: siw reads sk_callback_lock with read_lock() and softirqs on when
# TCP runs a socket's backlog from release_sock() (siw_qp_llp_data_ready()
# on the send path), while TCP itself writes that lock class in softirq-safe
# context (sock_orphan() under the socket's spinlock in tcp_close()).
# Lockdep reports it: run on a lockdep kernel (KVER=6.12-debug).  rping
# over siw with 64 KiB RDMA transfers, each try a fresh connection (whose
# end is a tcp_close()); bounded by the tries and timeout.
ip link add d1 type dummy
ip addr add 10.78.0.1/24 dev d1
ip link set d1 up
rdma link add siw0 type siw netdev d1
for i in 1 2 3 4 5 6; do
	echo "ki-repro: try $i"
	rping -s -a 10.78.0.1 -p 7001 -C 300 -S 65536 > /dev/null 2>&1 &
	s=$!
	# The client retries until the server listens (at most 10 times).
	for r in 1 2 3 4 5 6 7 8 9 10; do
		timeout 120 rping -c -a 10.78.0.1 -p 7001 -C 300 -S 65536 \
			> /dev/null 2>&1 && break
		usleep 200000
	done
	kill $s 2> /dev/null
	wait $s
done
