# SPDX-License-Identifier: GPL-2.0-only
#
# Shared by the guest's shell suites and story (sourced, not run).

# Poll (bounded, 30 s) until a command succeeds: for states, never as a delay.
await() {
	i=0
	while ! "$@" 2>/dev/null; do
		i=$((i + 1))
		[ $i -ge 300 ] && return 1
		sleep 0.1
	done
}

# cmkit's debugfs directory.
D=/sys/kernel/debug/cmkit

# The control plane's number of the rpcrdma endpoint to port $1.
xprt_nr() { awk -v p=":$1 " 'index($0, p) { print $1; exit }' $D/rpcrdma/xprts; }

# Something listens on TCP port $1, IPv4 or dual stack (siw's listener is
# a kernel TCP socket).
tcp_listening() {
	cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
		grep -qiE ":$(printf %04X "$1") 0+:0000 0A"
}

# An id of cmkit's irdma control plane, by role, has a line matching $2.
id_in() {	# <role> <regex>
	grep -q "^[0-9]* $1 .*$2" $D/irdma/ids
}

# ---- the kernel's NFS server over RDMA, exporting a file -----------------
#
# nfsd, NFSv4 only, with its RPC-over-RDMA listener (svcrdma) on port
# $NFS_PORT of every address, exports $NFS_EXPORT (a tmpfs of its own) as
# the NFSv4 pseudo-root (fsid=0: what PUTROOTFH reaches, so "<addr>:/" is
# mounted) to the addresses given to nfsd_export: rw, no_root_squash,
# insecure, sec=sys.  In it, $NFS_FILE: $NFS_FILE_SIZE bytes of nfs_pattern.
# There is no rpc.mountd: nfsd_export primes the kernel's export caches
# through their channels as mountd would.  docs/testing.md ("nfsd's
# export") has the layout for the cases that use it.
NFSD=/proc/fs/nfsd
NFS_PORT=20049
NFS_EXPORT=/srv/cmkit-nfs
NFS_FILE=cmkit-1m
NFS_FILE_SIZE=1048576
NFS_DOMAIN=cmkit-rdma-clients	# the auth_domain the caches name
# The export's flags (include/uapi/linux/nfsd/export.h): NFSEXP_INSECURE_PORT
# 0x2 | NFSEXP_NOSUBTREECHECK 0x400 | NFSEXP_FSID 0x2000 (a tmpfs has no
# device number: the fsid= number names it).  No NFSEXP_READONLY (rw), no
# NFSEXP_ROOTSQUASH (no_root_squash).
NFS_EXPORT_FLAGS=9218

# The known content: 16-byte lines, each its own byte offset in decimal,
# zero-padded to 15 digits, and a newline ("000000000000000\n",
# "000000000000016\n", ...).  Byte o of the file is byte o % 16 of
# printf("%015u\n", o - o % 16): any range can be checked on its own.
nfs_pattern() {	# <bytes, a multiple of 16>
	awk -v n="$1" 'BEGIN { for (o = 0; o < n; o += 16) printf "%015d\n", o }'
}

# Start nfsd: NFSv4 only (with NFSv3 on, nfsd needs lockd, which needs
# rpcbind, absent here), its RDMA listener, then threads.  Its grace
# period is the shortest (10 s): no NFSv4 OPEN is granted until it ended
# (nfsd_grace_over).  Errors go to <file>.
nfsd_start() {	# <error file>
	grep -qs " $NFSD nfsd " /proc/mounts || mount -t nfsd nfsd $NFSD 2>> "$1" || return 1
	echo "-2 -3 +4" > $NFSD/versions 2>> "$1" &&
		echo 10 > $NFSD/nfsv4gracetime 2>> "$1" &&
		echo "rdma $NFS_PORT" > $NFSD/portlist 2>> "$1" &&
		echo 4 > $NFSD/threads 2>> "$1"
}
nfsd_stop() {
	echo 0 > $NFSD/threads 2>/dev/null
	umount $NFSD 2>/dev/null
}

# nfsd's NFSv4 grace period is over: v4_end_grace reads Y.  Ending it
# early (writing Y) takes a client tracking method (nfsdcld or a recovery
# directory) the guest does not have; it ends by itself after 10 s.
nfsd_grace_over() {
	echo Y > $NFSD/v4_end_grace 2>/dev/null
	[ "$(cat $NFSD/v4_end_grace 2>/dev/null)" = Y ]
}

# Mount nfsd's pseudo-root at <address> on <dir> with the kernel's NFS
# client, NFSv4.0 over RDMA (killed after 45 s: a mount whose request is
# dropped retries until then); <error file> has mount's complaint.
nfs_rdma_mount() {	# <address> <dir> <error file>
	timeout -s KILL 45 mount -t nfs \
		-o vers=4.0,proto=rdma,port=$NFS_PORT,addr=$1,clientaddr=$1,soft,timeo=150,retrans=2 \
		"$1:/" "$2" 2> "$3"
}

# The export's file as nfs_pattern wrote it: its sha256.
nfs_file_sum() { nfs_pattern $NFS_FILE_SIZE | sha256sum | cut -d' ' -f1; }

# Export $NFS_EXPORT to the clients at <address>... by priming the caches
# nfsd asks mountd about (their line formats: ip_map_parse in
# net/sunrpc/svcauth_unix.c, svc_export_parse and expkey_parse in
# fs/nfsd/export.c; the same from 6.1 to 7.3):
#   auth.unix.ip  "nfsd <address> <expiry> <domain>": a request from the
#                 address (IPv4 is stored v4-mapped) belongs to the domain
#                 (created by this line, so it goes first);
#   nfsd.export   "<domain> <path> <expiry> <flags> <anonuid> <anongid>
#                 <fsid> secinfo 1 1 <flags>": the export (secinfo: one
#                 flavour, AUTH_UNIX, i.e. sec=sys);
#   nfsd.fh       "<domain> 1 \x00000000 <expiry> <path>": fsid type 1
#                 (FSID_NUM), fsid 0, is that path (how PUTROOTFH finds
#                 the pseudo-root).
# An expiry is wall-clock seconds (get_expiry() subtracts the boot time):
# a year from now.  A lookup that misses these entries within 30 s of the
# last write to a channel waits for a mountd (cache_listeners_exist()): nfsd
# drops the request and the client retries; later it is a negative entry
# at once.  nfsd must be running (its caches exist once nfsd's filesystem
# is mounted).  Errors go to <file>.
nfsd_export() {	# <error file> <address>...
	err=$1
	shift
	mkdir -p $NFS_EXPORT
	grep -qs " $NFS_EXPORT tmpfs " /proc/mounts ||
		mount -t tmpfs -o size=16m,mode=1777 cmkit-nfs $NFS_EXPORT 2>> "$err" || return 1
	nfs_pattern $NFS_FILE_SIZE > $NFS_EXPORT/$NFS_FILE 2>> "$err" &&
		chmod 666 $NFS_EXPORT/$NFS_FILE || return 1
	expiry=$(($(date +%s) + 365 * 86400))
	for a in "$@"; do
		echo "nfsd $a $expiry $NFS_DOMAIN" > /proc/net/rpc/auth.unix.ip/channel 2>> "$err" ||
			{ echo "auth.unix.ip refused $a" >> "$err"; return 1; }
	done
	f=$NFS_EXPORT_FLAGS
	echo "$NFS_DOMAIN $NFS_EXPORT $expiry $f 65534 65534 0 secinfo 1 1 $f" \
		> /proc/net/rpc/nfsd.export/channel 2>> "$err" ||
		{ echo "nfsd.export refused $NFS_EXPORT" >> "$err"; return 1; }
	printf '%s 1 \\x00000000 %s %s\n' $NFS_DOMAIN "$expiry" $NFS_EXPORT \
		> /proc/net/rpc/nfsd.fh/channel 2>> "$err" ||
		{ echo "nfsd.fh refused $NFS_EXPORT" >> "$err"; return 1; }
	# What the caches hold now, as their content files show it.
	for a in "$@"; do
		grep -q "^nfsd $a $NFS_DOMAIN\$" /proc/net/rpc/auth.unix.ip/content ||
			{ echo "auth.unix.ip lacks $a: $(cat /proc/net/rpc/auth.unix.ip/content)" >> "$err"; return 1; }
	done
	grep -q "^$NFS_EXPORT	$NFS_DOMAIN(.*fsid=0" /proc/net/rpc/nfsd.export/content ||
		{ echo "nfsd.export lacks it: $(cat /proc/net/rpc/nfsd.export/content)" >> "$err"; return 1; }
	grep -q "^$NFS_DOMAIN 1 0x00000000 $NFS_EXPORT\$" /proc/net/rpc/nfsd.fh/content ||
		{ echo "nfsd.fh lacks it: $(cat /proc/net/rpc/nfsd.fh/content)" >> "$err"; return 1; }
}
