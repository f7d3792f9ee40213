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
# sends a Write RTR) to cmkit-peer serve on siw0, then four rping pairs at
# once over siw with 64 KiB RDMA transfers, each try fresh connections
# (whose end is a tcp_close()); bounded by the tries and timeout.  After
# each step the script prints what lockdep recorded of the lock classes.
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
# What lockdep recorded of the two lock classes in the report: the usage
# bits (softirq-safe write, softirq-unsafe read) show which half of the
# inversion a try met.
lockdep_usage() {
	grep -E ': (clock|slock)-AF_INET' /proc/lockdep 2> /dev/null |
		sed "s/^/ki-repro: lockdep $1: /"
}
lockdep_usage "after the P2P connections"
for i in 1 2 3 4 5 6; do
	echo "ki-repro: try $i"
	# Four pairs at once: a segment more often finds its socket owned by
	# siw's sender, so TCP runs it from release_sock() with softirqs on.
	servers=
	for p in 7001 7003 7005 7007; do
		rping -s -a 10.78.0.1 -p $p -C 300 -S 65536 > /dev/null 2>&1 &
		servers="$servers $!"
	done
	clients=
	for p in 7001 7003 7005 7007; do
		(
			# The client retries until the server listens (at most 10 times).
			for r in 1 2 3 4 5 6 7 8 9 10; do
				timeout 120 rping -c -a 10.78.0.1 -p $p -C 300 -S 65536 \
					> /dev/null 2>&1 && break
				usleep 200000
			done
		) &
		clients="$clients $!"
	done
	for c in $clients; do
		wait $c
	done
	kill $servers 2> /dev/null
	for c in $servers; do
		wait $c
	done
	lockdep_usage "after try $i"
done
