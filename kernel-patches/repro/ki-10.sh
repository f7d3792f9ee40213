#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# KI-10: siw's accept of a peer-to-peer connection sends the MPA reply and
# only then installs siw_rtr_data_ready() as the socket's data callback
# (siw_accept(): siw_send_mpareqrep(), then siw_sk_assign_rtr_upcalls()).
# An RTR that lands in between meets siw_cm_llp_data_ready(), which ignores
# data in SIW_EPSTATE_RDMA_MODE, and no later data calls the new callback:
# the passive rdma_cm id never gets ESTABLISHED.  cmkit-peer serve accepts
# on siw0 (rdma_cm, a QP per connection) and disconnects each connection
# the moment it is ESTABLISHED; cmkit-peer mpa-connect, a plain TCP
# initiator, sends an MPA v2 request with the peer-to-peer bit and a Write
# RTR, spins for the reply, sends the RTR at once, and holds the
# connection 5 s or until serve closes it.  A connection serve did not
# close while it was held, or a request serve saw without ESTABLISHED, is
# the bug; without 0106 the initiator's close of such a connection hits
# BUG() in iw_cm's cm_close_handler() (KI-9), a splat that shows it too.
# Bounded: 10 tries of 5 connections.
ip link add d6 type dummy
ip addr add 10.83.0.1/24 dev d6
ip link set d6 up
rdma link add siw0 type siw netdev d6
S=/tmp/ki-10-serve.log
C=/tmp/ki-10-connect.log
cmkit-peer serve --addr 10.83.0.1 --port 7010 --count 50 --disconnect-after 0 \
	--timeout 60 > $S 2>&1 &
s=$!
# Until serve listens: a state, polled (at most 30 s), not a delay.
n=0
while ! grep -q '"listening"' $S; do
	n=$((n + 1))
	if [ $n -gt 300 ] || ! kill -0 $s 2> /dev/null; then
		echo "ki-repro: error: cmkit-peer serve did not listen: $(cat $S)"
		exit 1
	fi
	usleep 100000
done
rc=0
for i in 1 2 3 4 5 6 7 8 9 10; do
	echo "ki-repro: try $i"
	cmkit-peer mpa-connect --addr 10.83.0.1 --port 7010 --count 5 --hold-ms 5000 \
		--busy-poll --timeout 10 > $C 2>&1
	r=$?
	# Each connection's RTR delay after the reply and serve's close after it.
	echo "ki-repro: try $i: rtr_us/held_ms $(awk '{
		r = "-"; h = "-"
		if (match($0, /"rtr_us":[0-9.]+/)) r = substr($0, RSTART + 9, RLENGTH - 9)
		if (match($0, /"held_ms":[0-9.]+/)) h = substr($0, RSTART + 10, RLENGTH - 10)
		printf "%s/%s ", r, h }' $C)"
	held=$(grep '"rtr_sent":true.*"peer_closed":false' $C | head -n 1)
	if [ -n "$held" ]; then
		echo "ki-repro: bug: serve never closed a connection whose RTR was sent (no ESTABLISHED in 5 s): $held"
		rc=1
		break
	fi
	if [ $r -ne 0 ]; then
		echo "ki-repro: error: mpa-connect exited $r: $(tail -n 1 $C)"
		rc=2
		break
	fi
	# serve printed each ESTABLISHED before it disconnected, and each
	# connection of the try ended with that disconnect.
	req=$(grep -c '"event":"RDMA_CM_EVENT_CONNECT_REQUEST"' $S)
	est=$(grep -c '"event":"RDMA_CM_EVENT_ESTABLISHED"' $S)
	if [ "$est" -lt "$req" ] && ! kill -0 $s 2> /dev/null; then
		echo "ki-repro: error: cmkit-peer serve ended: $(tail -n 2 $S | tr '\n' ' ')"
		rc=2
		break
	fi
	if [ "$est" -lt "$req" ]; then
		echo "ki-repro: bug: serve got $req connection requests but only $est ESTABLISHED"
		rc=1
		break
	fi
done
kill $s 2> /dev/null
wait $s
grep -o 'RDMA_CM_EVENT_[A-Z_]*' $S | sort | uniq -c | sed 's/^/ki-repro: serve: /'
timeout 60 rdma link delete siw0 || echo "ki-repro: rdma link delete siw0 did not end"
exit $rc
