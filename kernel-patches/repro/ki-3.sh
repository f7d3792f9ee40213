#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# KI-3: a TCP connection to a siw listener that ends before siw's accept
# work took it off the accept queue still carries the listener's callbacks
# and user data, so its close queues SIW_CM_WORK_PEER_CLOSE on the listening
# cep, whose release puts the listener's references; destroying the
# listener then puts them again: WARN in siw_cep_put() (and refcount_t
# underflow) from siw_destroy_listen().  Plain TCP connections that close
# at once (busybox nc, stdin at EOF) race siw's accept work; rping's
# server owns the listener and destroys it when killed.
ip link add d2 type dummy
ip addr add 10.79.0.1/24 dev d2
ip link set d2 up
rdma link add siw0 type siw netdev d2
for i in 1 2 3 4 5 6 7 8 9 10; do
	echo "ki-repro: try $i"
	rping -s -P -a 10.79.0.1 -p 7003 > /dev/null 2>&1 &
	s=$!
	usleep 500000
	for j in 1 2 3 4 5 6 7 8 9 10; do
		timeout 1 nc 10.79.0.1 7003 < /dev/null > /dev/null 2>&1
	done
	kill $s 2> /dev/null
	wait $s
done
