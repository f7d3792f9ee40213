#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# KI-9: siw indicates CLOSE on an accepted peer-to-peer connection whose
# initiator's RTR never came in, and iw_cm's cm_close_handler() has no case
# for a cm_id still in IW_CM_STATE_CONN_RECV: BUG().  rping serves on siw0;
# a plain TCP peer (nc) sends an MPA v2 request with the peer-to-peer bit
# and a Write RTR (no private data but the IRD/ORD words), reads the reply
# rping's accept sends, and then sends an RTR siw refuses (RDMAP version
# 0): siw drops the connection (SIW_CM_WORK_CLOSE_LLP) before ESTABLISHED.
# (A plain close does not show it: siw_rtr_data_ready() runs for the FIN
# and indicates ESTABLISHED first.)  Bounded: 3 tries; on a patched kernel
# rping sees ESTABLISHED, then DISCONNECTED.
ip link add d5 type dummy
ip addr add 10.82.0.1/24 dev d5
ip link set d5 up
rdma link add siw0 type siw netdev d5
# "MPA ID Req Frame", flags 0x10 (enhanced), revision 2, 4 bytes of
# private data: IRD 4 with the peer-to-peer bit, ORD 4 with Write RTR.
req='MPA ID Req Frame\020\002\000\004\200\004\200\004'
# A zero-length Write RTR (MPA length 14, DDP tagged and last, STag 1, TO
# 0, no CRC) with RDMAP control 0x00 where siw wants version 1 (0x40).
bad='\000\016\301\000\000\000\000\001\000\000\000\000\000\000\000\000\000\000\000\000'
for i in 1 2 3; do
	echo "ki-repro: try $i"
	# One connection per rping server; its debug log goes to the console
	# (a terminal: line by line) and it exits when the connection ends.
	timeout 30 rping -s -d -a 10.82.0.1 -p 7009 &
	s=$!
	sleep 2
	# nc half-closes at the end of its input, and siw drops a request
	# whose FIN came with it: keep the input open until nc is killed.
	{ printf "$req"; sleep 2; printf "$bad"; sleep 6; } | timeout 5 nc 10.82.0.1 7009 |
		od -A n -t x1 | head -2 | sed 's/^/ki-repro: reply: /'
	wait $s
	echo "ki-repro: rping ended: $?"
done
timeout 60 rdma link delete siw0 || echo "ki-repro: rdma link delete siw0 did not end"
