#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# KI-2: siw reads sk_callback_lock with read_lock() and softirqs on when
# TCP runs a socket's backlog from release_sock() (siw_qp_llp_data_ready()
# on the send path), while TCP itself writes that lock class in softirq-safe
# context (sock_orphan() under the socket's spinlock in tcp_close()).
# Lockdep reports it: run on a lockdep kernel (KVER=6.12-debug).  The
# lock is written in softirq by siw_rtr_data_ready() when a peer-to-peer
# initiator's RTR comes in, which rping never sends: first three
# connections from cmkit-peer mpa-connect (a plain TCP MPA initiator that
# sends a Write RTR) to cmkit-peer serve on siw0, then rping over siw with
# 64 KiB RDMA transfers, each try a fresh connection (whose end is a
# tcp_close()); bounded by the tries and timeout.
ip link add d1 type dummy
ip addr add 10.78.0.1/24 dev d1
ip link set d1 up
rdma link add siw0 type siw netdev d1
S=/tmp/ki-2-serve.log
cmkit-peer serve --addr 10.78.0.1 --port 7002 --count 3 --disconnect-after 0 \
	--timeout 60 > $S 2>&1 &
s=$!
# Until serve listens: a state, polled (at most 30 s), not a delay.
n=0
while ! grep -q '"listening"' $S && [ $n -lt 300 ] && kill -0 $s 2> /dev/null; do
	n=$((n + 1))
	usleep 100000
done
cmkit-peer mpa-connect --addr 10.78.0.1 --port 7002 --count 3 --hold-ms 5000 \
	--timeout 10 | sed 's/^/ki-repro: mpa-connect: /'
wait $s
grep -o 'RDMA_CM_EVENT_[A-Z_]*' $S | sort | uniq -c | sed 's/^/ki-repro: serve: /'
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
