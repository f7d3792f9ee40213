#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# cmkit_srp_initiator: the kernel's own SRP initiator (ib_srp: built into
# cmkit's test kernels; on a stock leg Debian's module, which init loaded
# with sd_mod and ext4) against cmkit's SRP target on rxe0, in rdma_cm mode: the
# login with one and two channels, the SCSI scan, data at four block sizes,
# ext4, a read past the end, a target disconnect under I/O and ib_srp's
# reconnect, the device's removal and cmkit's unload under I/O.  Prints one
# KTAP suite on stdout.  Runs in the guest after rxe0 was (re)created and
# cmkit.ko was loaded; leaves cmkit loaded (with its default parameters)
# and rxe0 in place.
#
# Environment: RXE_ADDR, RXE_NETDEV (rxe0's netdev, to add rxe0 back after
# the removal case); SLOW: every bound multiplied by it (4 on a debug leg).
#
# Every wait polls a state (sysfs, cmkit's stats, a background command's
# exit status file) with a bound; a disk command that is stuck in the
# kernel is left behind and its case fails at the bound.

. /usr/lib/cmkit/lib.sh

T=/tmp/srp_initiator
rm -rf $T
mkdir -p $T
N=0
RESULTS=
SLOW=${SLOW:-1}

SRP_HOST=/sys/class/infiniband_srp/srp-rxe0-1	# ib_srp's port 1 of rxe0
RPORTS=/sys/class/srp_remote_ports
CMKIT_KO=/lib/cmkit/cmkit.ko

# ---- reporting (as cmkit_userspace) -------------------------------------------

note() { echo "    # $*" >> $T/diag; }
klog() { echo "$*" > /dev/kmsg 2>/dev/null; }

result() {	# <name> [reason]
	N=$((N + 1))
	if [ -z "$2" ]; then
		klog "    ok $N $1"
		RESULTS="$RESULTS
    ok $N $1"
	else
		# The reason too, on one line: shown live, and if the guest
		# dies later, the console has it.
		klog "    not ok $N $1 # $(printf %s "$2" | tr '\n' ' ')"
		RESULTS="$RESULTS
    not ok $N $1 # $2"
		note "$1: $2"
	fi
}

skip() {	# <name> <reason>
	N=$((N + 1))
	klog "    ok $N $1 # SKIP $2"
	RESULTS="$RESULTS
    ok $N $1 # SKIP $2"
}

# ---- waiting ----------------------------------------------------------------

# The helpers' own variables start with _<helper>_: sh has no local
# variables, and a helper must not change its caller's.

# Poll (every 0.1 s, for at most <seconds> x SLOW) until a command succeeds.
await_for() {	# <seconds> <command...>
	_af_n=$(($1 * 10 * SLOW))
	shift
	_af_i=0
	while ! "$@" 2>/dev/null; do
		_af_i=$((_af_i + 1))
		[ $_af_i -ge $_af_n ] && return 1
		sleep 0.1
	done
}

# Run a command in the background, its output to <log>; when it ends, its
# exit status lands in <file> (written whole: a reader never sees it half
# done).  Nothing of it holds the caller's stdout (a command substitution
# would wait for it).
bg_run() {	# <file> <log> <command...>
	_bg_f=$1 _bg_l=$2
	shift 2
	rm -f "$_bg_f" "$_bg_f.tmp"
	( "$@"; echo $? > "$_bg_f.tmp"; mv "$_bg_f.tmp" "$_bg_f" ) > "$_bg_l" 2>&1 < /dev/null &
}

# The exit status of a bg_run command, waiting at most <seconds> x SLOW for
# it; "timeout" if it did not end.
bg_status() {	# <file> <seconds>
	if await_for "$2" test -e "$1"; then cat "$1"; else echo timeout; fi
}

# A command run with its own bound: its output in <log>, its exit status
# (or "timeout": it is left behind, stuck) in $RC.  Each call has its own
# status file, so that a command left behind cannot answer for the next.
BN=0
bounded() {	# <seconds> <log> <command...>
	_b_s=$1 _b_log=$2
	shift 2
	BN=$((BN + 1))
	bg_run $T/bounded.$BN.rc "$_b_log" "$@"
	RC=$(bg_status $T/bounded.$BN.rc "$_b_s")
}

# ---- cmkit's side -------------------------------------------------------------

stat_of() { sed -n "s/^$1 //p" $D/srpt/stats; }
stat_is() { [ "$(stat_of "$1")" = "$2" ]; }
srpt_stats() { grep -v '^upcall\|^event' $D/srpt/stats | tr '\n' ' '; }

# Nothing of srpt is alive: no channel, no send context, no rdma_rw context.
srpt_idle() {
	await stat_is channels_alive 0 && await stat_is ctx_alive 0 &&
		await stat_is rw_ctx_alive 0
}

# The send and rdma_rw contexts are all back (channels may be live).
srpt_quiet() { await stat_is ctx_alive 0 && await stat_is rw_ctx_alive 0; }

# rxe0's target: its rdma_cm port, and the target port identifier's two
# halves as ib_srp takes them (id_ext: bytes 0-7, ioc_guid: bytes 8-15).
read_target() {
	line=$(grep '^rxe0 ' $D/srpt/targets 2>/dev/null)
	SRPT_PORT=$(echo "$line" | sed -n 's/.*rdma_cm_port=\([0-9]*\).*/\1/p')
	tpid=$(echo "$line" | sed -n 's/.*target_port_id=\([0-9a-f]*\).*/\1/p')
	ID_EXT=$(echo "$tpid" | cut -c1-16)
	IOC_GUID=$(echo "$tpid" | cut -c17-32)
	[ -n "$SRPT_PORT" ] && [ "$SRPT_PORT" != 0 ] && [ ${#tpid} = 32 ]
}

lun_mib() { cat /sys/module/cmkit/parameters/srpt_lun_mib 2>/dev/null; }

# The cmkit.ko init loaded: $CMKIT_KO, or on a stock leg the one DKMS
# installed, as depmod's index resolves it.
cmkit_ko() {
	if [ -e $CMKIT_KO ]; then
		echo $CMKIT_KO
	else
		modprobe -D cmkit 2>/dev/null | awk '$1 == "insmod" && $2 ~ /\/cmkit\.ko$/ { print $2 }'
	fi
}

# Load cmkit.ko (as init did, plus <params>); wait for rxe0's target.
# insmod, not modprobe: modprobe would add the kernel command line's
# cmkit.* words (cmkit.mode=test...) to the parameters.
load_cmkit() {	# [params...]
	_lc_ko=$(cmkit_ko)
	[ -n "$_lc_ko" ] && insmod "$_lc_ko" "$@" && await read_target
}

# ---- ib_srp's side ------------------------------------------------------------

rports() { ls $RPORTS 2>/dev/null; }
rport_attr() { cat "$RPORTS/$RPORT/$1" 2>/dev/null; }
rport_state_is() { [ "$(rport_attr state)" = "$1" ]; }
# Sectors written to the disk so far (field 7 of its stat).
written() { awk '{ print $7 }' /sys/block/$DISK/stat 2>/dev/null; }
written_over() { [ "$(written)" -gt "$1" ]; }
gone() { [ ! -e "$1" ]; }
has_block() { [ -n "$(ls /sys/bus/scsi/devices/$1/block 2>/dev/null)" ]; }
stat_ge() { [ "$(stat_of "$1")" -ge "$2" ]; }

# Why the next case cannot run: set when a login failed, so that the cases
# needing its disk fail at once instead of each waiting for its bounds.
NO_DISK="no login yet"
# Set when a login's scan got no answer (the add_target write did not
# return within its bound, or it returned after ib_srp gave up on the scan
# and removed its SCSI host, about 30 s): every later login fails at once
# with this reason instead of waiting as long again.
LOGIN_STUCK=

# ib_srp logs in to cmkit's target on rxe0 with <ch_count> channels.  Sets
# RPORT (port-<host>:1), SHOST (host<n>) and DISK (sd<x>); on failure, $why.
# The write to add_target returns once the login and the SCSI scan are done.
srp_add() {	# <ch_count>
	RPORT='' SHOST='' DISK=''
	if [ -n "$LOGIN_STUCK" ]; then
		why=$LOGIN_STUCK
		return 1
	fi
	if ! read_target; then
		why="no srpt target on rxe0: $(cat $D/srpt/targets)"
		return 1
	fi
	if [ ! -d /sys/module/ib_srp ]; then
		why="ib_srp is not loaded (on a stock leg: not in scripts/stock.py's MODULES?)"
		return 1
	fi
	if [ ! -e $SRP_HOST/add_target ]; then
		why="no $SRP_HOST (ib_srp)"
		return 1
	fi
	rports > $T/rports.before
	opts="id_ext=$ID_EXT,ioc_guid=$IOC_GUID,dest=$RXE_ADDR:$SRPT_PORT,ch_count=$1"
	t0=$(uptime_s)
	bounded 90 $T/add.log sh -c "echo $opts > $SRP_HOST/add_target"
	rc=$RC
	note "add_target $opts: exit $rc in $(since "$t0") s"
	if [ "$rc" = timeout ]; then
		LOGIN_STUCK="an earlier add_target ($opts) never returned"
		why="add_target $opts did not return in $((90 * SLOW)) s (the scan got no answer?)"
		return 1
	fi
	if [ "$rc" != 0 ]; then
		why="add_target $opts: ${rc} $(tr '\n' ' ' < $T/add.log)"
		return 1
	fi
	for r in $(rports); do grep -qx "$r" $T/rports.before || RPORT=$r; done
	if [ -z "$RPORT" ]; then
		# ib_srp's add_target succeeds even when its scan failed: it
		# logs "SCSI scan failed - removing SCSI host" and removes it.
		why="add_target returned, but ib_srp removed its SCSI host (its scan failed:"
		why="$why $(dmesg | grep -c 'SRP abort called') SRP aborts so far)"
		LOGIN_STUCK="an earlier login ($opts) found no disk: its scan failed"
		return 1
	fi
	# srp_delete() waits for these to go: they must be seen first.
	if [ "$(srp_cm_ids | wc -l)" -lt "$1" ]; then
		why="rdma res show cm_id lists $(srp_cm_ids | wc -l) ids of ib_srp's, not $1"
		return 1
	fi
	h=${RPORT#port-}
	h=${h%%:*}
	SHOST=host$h
	# The scan ran inside the write: the SCSI devices are there; sd's
	# probe (asynchronous) makes the block device.
	ls /sys/bus/scsi/devices | grep "^$h:[0-9]*:[0-9]*:[0-9]*$" > $T/sdevs
	if [ "$(wc -l < $T/sdevs)" != 1 ]; then
		why="the scan found $(wc -l < $T/sdevs) SCSI devices, not one: $(tr '\n' ' ' < $T/sdevs)"
		return 1
	fi
	sdev=$(cat $T/sdevs)
	if ! await_for 30 has_block "$sdev"; then
		why="no block device on $sdev"
		return 1
	fi
	DISK=$(ls /sys/bus/scsi/devices/$sdev/block/ | head -n 1)
	await_for 30 test -b /dev/$DISK || { why="no /dev/$DISK"; return 1; }
	note "$RPORT ($SHOST) $sdev $DISK: $(tr -s ' ' < /sys/block/$DISK/device/vendor)" \
		"$(tr -s ' ' < /sys/block/$DISK/device/model), $(cat /sys/block/$DISK/size) sectors"
	NO_DISK=
}

# The rdma_cm ids ib_srp holds (its channels'; none once its targets are gone).
srp_cm_ids() { rdma res show cm_id 2>/dev/null | grep '\[ib_srp\]'; }
no_srp_cm_ids() { [ -z "$(srp_cm_ids)" ]; }

# ib_srp logs out (the remote port's delete): its channels are
# disconnected, the SCSI host and its disk go.
srp_delete() {
	[ -n "$RPORT" ] || return 0
	echo 1 > $RPORTS/$RPORT/delete 2>/dev/null
	await_for 60 gone $RPORTS/$RPORT || { why="${why:-$RPORT still there 60 s after its delete}"; return 1; }
	[ -z "$DISK" ] || await_for 30 gone /sys/block/$DISK || { why="${why:-$DISK still there}"; return 1; }
	# The remote port goes first (srp_remove_host()), the SCSI host next;
	# only then does ib_srp stop its reconnect timer (waiting for a
	# reconnect under way) and free its channels' rdma_cm ids: the removal
	# is over when ib_srp holds no id (rdma_cm's resource tracking names
	# the module of a kernel id: "[ib_srp]").
	[ -z "$SHOST" ] || await_for 30 gone /sys/class/scsi_host/$SHOST ||
		{ why="${why:-$SHOST still there}"; return 1; }
	await_for 60 no_srp_cm_ids ||
		{ why="${why:-ib_srp still holds rdma_cm ids: $(srp_cm_ids | tr '\n' ' ')}"; return 1; }
	RPORT='' SHOST='' DISK=''
	NO_DISK="logged out"
}

# Every remote port ib_srp still has, deleted (the end of the suite, and
# after a case that failed half way).
delete_all_rports() {
	for r in $(rports); do
		echo 1 > $RPORTS/$r/delete 2>/dev/null
		await_for 60 gone $RPORTS/$r || note "$r still there 60 s after its delete"
	done
	RPORT='' SHOST='' DISK=''
}

# ---- data ---------------------------------------------------------------------

# A fresh random pattern of <kib> KiB in <file>.
pattern() {	# <file> <kib>
	dd if=/dev/urandom of="$1" bs=1024 count="$2" 2>/dev/null
}

# <file> written at <bs> bytes a block at <offset> bytes into the disk, with
# direct I/O (each block a SCSI command to the target, none cached), read
# back the same way into <file>.back, compared.  Sets $why on failure.
write_read_cmp() {	# <file> <bs> <offset>
	f=$1 bs=$2
	kib=$(($(stat -c %s "$f") / 1024))
	count=$((kib * 1024 / bs))
	seek=$(($3 / bs))
	bounded 120 $T/dd.log dd if="$f" of=/dev/$DISK bs="$bs" seek=$seek count=$count \
		oflag=direct conv=notrunc
	rc=$RC
	if [ "$rc" != 0 ]; then
		why="${why:-writing ${kib} KiB at ${bs} B blocks: $rc $(tr '\n' ' ' < $T/dd.log)}"
		return 1
	fi
	bounded 120 $T/dd.log dd if=/dev/$DISK of="$f.back" bs="$bs" skip=$seek count=$count \
		iflag=direct
	rc=$RC
	if [ "$rc" != 0 ]; then
		why="${why:-reading ${kib} KiB at ${bs} B blocks: $rc $(tr '\n' ' ' < $T/dd.log)}"
		return 1
	fi
	if ! cmp "$f" "$f.back" > $T/cmp.log 2>&1; then
		why="${why:-read back at ${bs} B blocks differs from what was written: $(head -n 1 $T/cmp.log)}"
		return 1
	fi
}

uptime_s() { cut -d' ' -f1 /proc/uptime; }
since() { awk "BEGIN { printf \"%.1f\", $(uptime_s) - $1 }"; }

# ---- the cases ----------------------------------------------------------------

# Login with <ch> channels: exactly one disk, of cmkit.srpt_lun_mib MiB in
# 512-byte blocks, cmkit's vendor and product, <ch> channels on both sides.
login_case() {	# <ch>
	ch=$1
	name=srp_login_ch_count_${ch}_finds_one_disk_of_the_lun_size
	why=
	await stat_is channels_alive 0 || why="srpt not idle before the login: $(srpt_stats)"
	acc0=$(stat_of logins_accepted)
	if [ -z "$why" ] && srp_add "$ch"; then
		mib=$(lun_mib)
		[ -n "$mib" ] || why="cmkit has no srpt_lun_mib parameter"
		size=$(cat /sys/block/$DISK/size)
		[ -z "$why" ] && [ "$size" != $((mib * 2048)) ] &&
			why="$DISK has $size sectors, not the $mib MiB of cmkit.srpt_lun_mib"
		lbs=$(cat /sys/block/$DISK/queue/logical_block_size)
		[ "$lbs" = 512 ] || why="${why:-logical block size $lbs, not 512}"
		grep -q '^CMKIT' /sys/block/$DISK/device/vendor &&
			grep -q '^RAM DISK' /sys/block/$DISK/device/model ||
			why="${why:-not the LUN of cmkit: $(cat /sys/block/$DISK/device/vendor /sys/block/$DISK/device/model)}"
		[ "$(cat /sys/class/scsi_host/$SHOST/ch_count 2>/dev/null)" = "$ch" ] ||
			why="${why:-ch_count of ib_srp: $(cat /sys/class/scsi_host/$SHOST/ch_count 2>/dev/null)}"
		[ "$(stat_of channels_alive)" = "$ch" ] && [ "$(stat_of logins_accepted)" = $((acc0 + ch)) ] ||
			why="${why:-cmkit does not hold $ch channels: $(srpt_stats)}"
	else
		NO_DISK="the ch_count=$ch login failed"
	fi
	result "$name" "$why"
}

# One block size: a pattern written and read back (direct I/O), compared;
# cmkit counted the commands, and its contexts are all back afterwards.
dd_case() {	# <ch> <label> <bs> <kib> <offset MiB>
	name=srp_dd_${2}_blocks_ch_count_$1
	why=
	if [ -n "$NO_DISK" ]; then
		result "$name" "$NO_DISK"
		return
	fi
	pattern $T/pat "$4"
	cmds0=$(stat_of cmds)
	t0=$(uptime_s)
	write_read_cmp $T/pat "$3" $(($5 * 1048576))
	note "$name: ${4} KiB written and read in $(since "$t0") s"
	n=$((2 * $4 * 1024 / $3))
	[ -n "$why" ] || [ "$(stat_of cmds)" -ge $((${cmds0:-0} + n)) ] ||
		why="cmkit counted $(($(stat_of cmds) - ${cmds0:-0})) commands for $n transfers: $(srpt_stats)"
	srpt_quiet || why="${why:-contexts left after the transfers: $(srpt_stats)}"
	result "$name" "$why"
}

logout_case() {	# <ch>
	name=srp_logout_ch_count_${1}_leaves_nothing_alive
	why=
	if [ -z "$RPORT" ]; then
		result "$name" "$NO_DISK"
		return
	fi
	rel0=$(stat_of channels_freed)
	srp_delete
	srpt_idle || why="${why:-srpt after the logout: $(srpt_stats)}"
	[ "$(stat_of channels_freed)" = $((rel0 + $1)) ] ||
		why="${why:-$(($(stat_of channels_freed) - rel0)) channels freed, not $1}"
	result "$name" "$why"
}

# mkfs.ext4 on the disk, mount, files written, unmount, every cached block
# of the disk dropped, remount: the files read back the same, and the
# checker finds the filesystem clean.
ext4_case() {
	name=srp_ext4_mkfs_mount_write_remount_verify
	why=
	if [ -n "$NO_DISK" ]; then
		result "$name" "$NO_DISK"
		return
	fi
	[ -e /etc/mtab ] || ln -s /proc/self/mounts /etc/mtab
	M=$T/mnt
	mkdir -p $M
	bounded 120 $T/mkfs.log /usr/sbin/mke2fs -F -t ext4 /dev/$DISK
	rc=$RC
	[ "$rc" = 0 ] || why="mke2fs: $rc $(tail -n 3 $T/mkfs.log | tr '\n' ' ')"
	if [ -z "$why" ]; then
		bounded 60 $T/mount.log mount -t ext4 /dev/$DISK $M
		rc=$RC
		[ "$rc" = 0 ] || why="mount: $rc $(cat $T/mount.log)"
	fi
	if [ -z "$why" ]; then
		mkdir -p $M/a/b
		pattern $M/small 3
		pattern $M/a/medium 300
		pattern $M/a/b/large 4096
		seq 1 20000 > $M/a/b/numbers
		(cd $M && find . -type f ! -name lost+found | sort | xargs sha256sum) > $T/sums
		bounded 120 $T/umount.log umount $M
		rc=$RC
		[ "$rc" = 0 ] || why="umount: $rc $(cat $T/umount.log)"
	fi
	if [ -z "$why" ]; then
		blockdev --flushbufs /dev/$DISK
		echo 3 > /proc/sys/vm/drop_caches
		bounded 120 $T/fsck.log /usr/sbin/e2fsck -f -n /dev/$DISK
		rc=$RC
		[ "$rc" = 0 ] || why="e2fsck -f -n: $rc $(tail -n 5 $T/fsck.log | tr '\n' ' ')"
		bounded 60 $T/mount.log mount -t ext4 /dev/$DISK $M
		rc=$RC
		[ "$rc" = 0 ] || why="${why:-remount: $rc $(cat $T/mount.log)}"
	fi
	if [ -z "$why" ]; then
		(cd $M && sha256sum -c $T/sums) > $T/check.log 2>&1 ||
			why="files differ after the remount: $(grep -v ': OK$' $T/check.log | head -n 3 | tr '\n' ' ')"
		[ "$(wc -l < $T/sums)" = 4 ] || why="${why:-$(wc -l < $T/sums) files summed, not 4}"
		bounded 120 $T/umount.log umount $M
		rc=$RC
		[ "$rc" = 0 ] || why="${why:-umount: $rc $(cat $T/umount.log)}"
	fi
	grep -q " $M " /proc/mounts && umount $M
	srpt_quiet || why="${why:-contexts left: $(srpt_stats)}"
	result "$name" "$why"
}

# A READ(16) at an LBA as sg_raw sends it (SG_IO on the disk: the block
# layer itself never sends a command past the capacity the scan read):
# sg_raw's exit status on stdout, its output in <log>, the data in <out>.
read16() {	# <lba> <blocks> <out> <log>
	lba=$(printf %016x "$1" | sed 's/../& /g')
	len=$(printf %08x "$2" | sed 's/../& /g')
	# shellcheck disable=SC2086
	bounded 60 "$4" sg_raw -t 30 -r $(($2 * 512)) -o "$3" /dev/$DISK 88 00 $lba $len 00 00
}

# The last block reads; the block after it, and a read straddling the end,
# fail at once with CHECK CONDITION, ILLEGAL REQUEST, LBA OUT OF RANGE (no
# timeout, no abort, the channel survives).
past_end_case() {
	name=srp_read_past_the_end_fails_quickly_with_lba_out_of_range
	why=
	if [ -n "$NO_DISK" ]; then
		result "$name" "$NO_DISK"
		return
	fi
	blocks=$(cat /sys/block/$DISK/size)
	read16 $((blocks - 1)) 1 $T/last $T/sg.log
	rc=$RC
	[ "$rc" = 0 ] || why="READ(16) of the last block: $rc $(tr '\n' ' ' < $T/sg.log)"
	dd if=/dev/$DISK of=$T/last.dd bs=512 skip=$((blocks - 1)) count=1 iflag=direct 2>/dev/null
	cmp -s $T/last $T/last.dd || why="${why:-READ(16) of the last block differs from what dd reads there}"
	ch0=$(stat_of channels_alive)
	for at in "$blocks 1" "$((blocks - 1)) 2" "$((blocks + 1000)) 1"; do
		t0=$(uptime_s)
		# shellcheck disable=SC2086
		read16 $at $T/past $T/sg.log
		rc=$RC
		took=$(since "$t0")
		note "READ(16) lba/blocks $at: exit $rc in $took s: $(tr '\n' ' ' < $T/sg.log | cut -c1-200)"
		if [ "$rc" = 0 ]; then
			why="${why:-READ(16) $at past the end succeeded}"
		elif ! grep -qi "Logical block address out of range" $T/sg.log ||
			! grep -qi "Illegal Request" $T/sg.log; then
			why="${why:-READ(16) $at: not LBA OUT OF RANGE: $(tr '\n' ' ' < $T/sg.log)}"
		fi
		awk "BEGIN { exit !($took < 5 * $SLOW) }" ||
			why="${why:-READ(16) $at took $took s to fail}"
	done
	[ "$(stat_of channels_alive)" = "$ch0" ] && rport_state_is running ||
		why="${why:-the login did not survive: state $(rport_attr state), $(srpt_stats)}"
	srpt_quiet || why="${why:-contexts left: $(srpt_stats)}"
	result "$name" "$why"
}

# Writes of <file> to the start of the disk, again and again (direct I/O, 64
# KiB blocks), in the background until $T/stop exists; its exit status (0:
# every pass succeeded; else the failing dd's) in $T/loop.rc, dd's errors
# in $T/loop.err.
io_loop() {	# <file>
	rm -f $T/stop $T/loop.err
	cat > $T/loop.sh <<-EOF
		while [ ! -e $T/stop ]; do
			dd if=$1 of=/dev/$DISK bs=65536 oflag=direct conv=notrunc 2>> $T/loop.err || exit \$?
			echo pass >> $T/loop.passes
		done
	EOF
	rm -f $T/loop.passes
	bg_run $T/loop.rc $T/loop.out sh $T/loop.sh
}

# The remote port's transport timers short: a reconnect attempt every
# second, outstanding and new I/O failed 3 s after the transport broke
# (defaults: 10 and 15 s).  Without them a dead target holds the writes for
# the SCSI timeout and error handling (minutes), not for ever.
timers_short() {
	echo 1 > $RPORTS/$RPORT/reconnect_delay && echo 3 > $RPORTS/$RPORT/fast_io_fail_tmo
}

# The background writes are under way: 1 MiB more written, and still going.
io_flowing() {
	w=$(written)
	await_for 30 written_over $((w + 2048)) && [ ! -e $T/loop.rc ]
}

# cmkit's control plane disconnects every channel (ib_srp logs in with tag
# 0) while writes are in flight; ib_srp reconnects (reconnect_delay 1 s),
# the writes it had outstanding are retried and go on: every pass
# succeeds, the data reads back, the old channels are released.
disconnect_case() {	# <ch>
	name=srp_target_disconnect_mid_io_then_reconnect_resumes_io
	ch=$1
	why=
	if [ -n "$NO_DISK" ]; then
		result "$name" "$NO_DISK"
		return
	fi
	echo 1 > $RPORTS/$RPORT/reconnect_delay || why="reconnect_delay not writable"
	pattern $T/loop.pat 4096
	acc0=$(stat_of logins_accepted)
	rel0=$(stat_of channels_freed)
	io_loop $T/loop.pat
	io_flowing || why="${why:-no writes under way: $(cat $T/loop.rc 2>/dev/null) $(cat $T/loop.err 2>/dev/null)}"
	echo "disconnect 0" > $D/srpt/ctl 2> $T/ctl.err || why="${why:-disconnect 0: $(cat $T/ctl.err)}"
	t0=$(uptime_s)
	await_for 60 stat_ge logins_accepted $((acc0 + ch)) ||
		why="${why:-ib_srp did not log in again: $(srpt_stats)}"
	await_for 30 rport_state_is running || why="${why:-remote port $(rport_attr state)}"
	note "$name: logged in again after $(since "$t0") s, $(wc -l < $T/loop.passes 2>/dev/null) passes so far"
	io_flowing || why="${why:-the writes did not resume: $(cat $T/loop.rc 2>/dev/null) $(cat $T/loop.err 2>/dev/null)}"
	touch $T/stop
	rc=$(bg_status $T/loop.rc 120)
	[ "$rc" = 0 ] || why="${why:-a write failed across the reconnect: $rc $(tr '\n' ' ' < $T/loop.err)}"
	note "$name: $(wc -l < $T/loop.passes 2>/dev/null) passes of 4 MiB"
	if [ "$rc" != timeout ]; then
		dd if=/dev/$DISK of=$T/loop.back bs=65536 count=64 iflag=direct 2>/dev/null
		cmp -s $T/loop.pat $T/loop.back || why="${why:-the data read back differs}"
	fi
	await_for 30 stat_ge channels_freed $((rel0 + ch)) && await stat_is channels_alive "$ch" ||
		why="${why:-the old channels were not released: $(srpt_stats)}"
	srpt_quiet || why="${why:-contexts left: $(srpt_stats)}"
	result "$name" "$why"
}

# rxe0 deleted while writes are in flight: rdma link delete returns, the
# writes fail, ib_srp removes its port and disk, cmkit holds nothing; rxe0
# is added back and both ends find it again.
removal_case() {	# <ch>
	name=srp_rdma_link_delete_mid_io_ends_cleanly
	why=
	if srp_add "$1"; then
		# I/O failed 2 s after the transport broke, and no reconnect
		# within 20 s: ib_srp's removal (which waits for the failed I/O)
		# is done before a reconnect could start on the device being
		# removed.  A reconnect there (reconnect_delay 1 s) crashed the
		# 6.12 guest: a flushed completion with a NULL done callback in
		# ib_srp's send CQ, polled by srp_destroy_qp() from
		# srp_rport_reconnect() (ib_srp's, no cmkit frame; see docs/testing.md).
		echo 2 > $RPORTS/$RPORT/fast_io_fail_tmo && echo 20 > $RPORTS/$RPORT/reconnect_delay ||
			why="fast_io_fail_tmo or reconnect_delay not writable"
		pattern $T/loop.pat 4096
		io_loop $T/loop.pat
		io_flowing || why="${why:-no writes under way: $(cat $T/loop.rc 2>/dev/null) $(cat $T/loop.err 2>/dev/null)}"
		t0=$(uptime_s)
		bounded 120 $T/del.log rdma link delete rxe0
		rc=$RC
		[ "$rc" = 0 ] || why="${why:-rdma link delete rxe0: $rc $(cat $T/del.log)}"
		note "$name: rdma link delete rxe0 returned $rc after $(since "$t0") s"
		rc=$(bg_status $T/loop.rc 120)
		note "$name: the writes ended with $rc after $(since "$t0") s: $(tr '\n' ' ' < $T/loop.err 2>/dev/null | cut -c1-200)"
		case $rc in
		0) why="${why:-the writes ended without an error}" ;;
		timeout) why="${why:-the writes still hang 120 s after the removal}" ;;
		esac
		touch $T/stop
		await_for 60 gone $RPORTS/$RPORT || why="${why:-ib_srp kept $RPORT}"
		await_for 30 gone /sys/block/$DISK || why="${why:-$DISK is still there}"
		RPORT='' SHOST='' DISK=''
		srpt_idle || why="${why:-srpt after the removal: $(srpt_stats)}"
		grep -q '^rxe0 ' $D/srpt/targets && why="${why:-cmkit still lists a target on rxe0}"
	fi
	NO_DISK="removed"
	rdma link show rxe0/1 > /dev/null 2>&1 || rdma link add rxe0 type rxe netdev "$RXE_NETDEV" ||
		why="${why:-rdma link add rxe0 failed}"
	await_for 30 sh -c 'rdma link show rxe0/1 | grep -q "state ACTIVE"' &&
		await_for 30 test -e $SRP_HOST/add_target && await_for 30 read_target ||
		why="${why:-rxe0 back, but not ACTIVE with the ports of ib_srp and cmkit}"
	result "$name" "$why"
}

# cmkit unloaded while ib_srp is logged in with writes in flight: the
# unload does not wait for the initiator, ib_srp's reconnects fail and,
# past fast_io_fail_tmo, the writes fail; its port deleted, cmkit loads
# again with nothing alive.  The verdict on the unload is the old module's:
# its counters read just before rmmod (the channels the unload must end
# were alive), and its own word on the unload in the kernel log ("cmkit:
# unloaded", no "cmkit: LEAK:" or "cmkit: ERROR:" from its teardown), read
# before the reload; the reloaded module's counters start from zero.
unload_case() {	# <ch>
	name=srp_unload_cmkit_with_live_initiator_ends_cleanly
	why=
	if srp_add "$1"; then
		timers_short || why="reconnect_delay or fast_io_fail_tmo not writable"
		pattern $T/loop.pat 4096
		io_loop $T/loop.pat
		io_flowing || why="${why:-no writes under way: $(cat $T/loop.rc 2>/dev/null) $(cat $T/loop.err 2>/dev/null)}"
		old=$(srpt_stats)
		note "$name: before the unload: $old"
		[ "$(stat_of channels_alive)" = "$1" ] ||
			why="${why:-$1 channel(s) should be alive before the unload: $old}"
		mark=$(dmesg | wc -l)
		t0=$(uptime_s)
		bounded 120 $T/rmmod.log rmmod cmkit
		rc=$RC
		note "$name: rmmod cmkit: $rc after $(since "$t0") s $(cat $T/rmmod.log)"
		[ "$rc" = 0 ] || why="${why:-rmmod cmkit: $rc $(cat $T/rmmod.log)}"
		if [ "$rc" = 0 ]; then
			dmesg | tail -n +$((mark + 1)) > $T/unload.log
			bad=$(grep -E 'cmkit: ([a-z_]+: )?(LEAK|ERROR):' $T/unload.log | head -n 3 | tr '\n' ' ')
			[ -z "$bad" ] || why="${why:-the unload said: $bad}"
			grep -q 'cmkit: unloaded' $T/unload.log ||
				why="${why:-no 'cmkit: unloaded' in the kernel log after rmmod}"
		fi
		rc=$(bg_status $T/loop.rc 120)
		note "$name: the writes ended with $rc after $(since "$t0") s, remote port $(rport_attr state): $(tr '\n' ' ' < $T/loop.err 2>/dev/null | cut -c1-200)"
		case $rc in
		0) why="${why:-the writes ended without an error}" ;;
		timeout) why="${why:-the writes still hang 120 s after the unload}" ;;
		esac
		touch $T/stop
		srp_delete
	fi
	NO_DISK="logged out"
	[ -d /sys/module/cmkit ] || load_cmkit || why="${why:-cmkit did not load again}"
	# The reloaded module: a fresh one, nothing alive (its zero counters
	# say nothing of the unload, judged above).
	srpt_idle || why="${why:-srpt after the reload: $(srpt_stats)}"
	note "$name: after the reload: $(srpt_stats)"
	result "$name" "$why"
}

# cmkit loaded with srpt_lun_mib=8: the scan finds 8 MiB; then the
# default again.
lun_size_case() {
	name=srp_lun_size_follows_srpt_lun_mib
	why=
	if rmmod cmkit && load_cmkit srpt_lun_mib=8; then
		[ "$(lun_mib)" = 8 ] || why="srpt_lun_mib reads $(lun_mib)"
		if srp_add 1; then
			size=$(cat /sys/block/$DISK/size)
			[ "$size" = 16384 ] || why="$DISK has $size sectors with srpt_lun_mib=8"
			bounded 60 $T/dd.log dd if=/dev/$DISK of=/dev/null bs=512 skip=16383 count=1 iflag=direct
			rc=$RC
			[ "$rc" = 0 ] || why="${why:-reading the last of the 8 MiB: $rc $(cat $T/dd.log)}"
			srp_delete
		fi
		srpt_idle || why="${why:-srpt after the logout: $(srpt_stats)}"
	else
		why="cmkit did not reload with srpt_lun_mib=8"
	fi
	NO_DISK="logged out"
	if [ -d /sys/module/cmkit ]; then rmmod cmkit || why="${why:-rmmod cmkit failed}"; fi
	load_cmkit || why="${why:-cmkit did not load again with its defaults}"
	[ "$(lun_mib)" = "$LUN_MIB0" ] || why="${why:-srpt_lun_mib is $(lun_mib) after the reload, not $LUN_MIB0}"
	result "$name" "$why"
}

klog "    KTAP version 1"
klog "    # Subtest: cmkit_srp_initiator"

LUN_MIB0=$(lun_mib)	# as init loaded cmkit: what the suite leaves it with

for ch in 1 2; do
	login_case $ch
	dd_case $ch 512b 512 256 0
	dd_case $ch 4k 4096 1024 1
	dd_case $ch 128k 131072 4096 4
	dd_case $ch 1m 1048576 8192 8
	if [ $ch = 2 ]; then
		ext4_case
		past_end_case
		disconnect_case $ch
	fi
	logout_case $ch
done
delete_all_rports
removal_case 2
delete_all_rports
unload_case 1
delete_all_rports
lun_size_case
delete_all_rports

note "srpt stats at the end: $(srpt_stats)"
fails=$(echo "$RESULTS" | grep -c '^    not ok')
echo "KTAP version 1"
echo "1..1"
echo "    KTAP version 1"
echo "    # Subtest: cmkit_srp_initiator"
echo "    1..$N"
[ -f $T/diag ] && cat $T/diag
echo "$RESULTS" | sed '/^$/d'
if [ "$fails" -eq 0 ]; then echo "ok 1 cmkit_srp_initiator"; else echo "not ok 1 cmkit_srp_initiator"; fi
