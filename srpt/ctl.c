// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit srpt: the debugfs control plane, cmkit/srpt/.
 *
 *   ctl      write one command per line:
 *              start              listen on every device (as at load)
 *              stop               close every channel, stop listening
 *              disconnect <tag>   target-initiated disconnect of a channel
 *            a failed command fails the write with its errno
 *   targets  one line per device: service id, rdma_cm port, target port id
 *   stats    logins accepted and rejected, channels alive, cm_ids destroyed,
 *            and the data path's counters (struct srpt_counters), one
 *            "name value" line each
 */
#define pr_fmt(fmt) "cmkit: srpt: " fmt

#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "core/cmkit.h"
#include "srpt/srpt.h"

static int srpt_ctl_command(char *line)
{
	char *verb = strsep(&line, " ");
	u64 tag;

	if (!strcmp(verb, "start") && !line)
		return cmkit_srpt_start();
	if (!strcmp(verb, "stop") && !line)
		return cmkit_srpt_stop();
	if (!strcmp(verb, "disconnect") && line && !kstrtou64(line, 0, &tag))
		return cmkit_srpt_disconnect(tag);
	return -EINVAL;
}

static int srpt_targets_show(struct seq_file *m, void *v)
{
	cmkit_srpt_show_targets(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(srpt_targets);

static int srpt_stats_show(struct seq_file *m, void *v)
{
	struct srpt_counters c;

	cmkit_srpt_counters(&c);
	seq_printf(m, "listening %d\n", cmkit_srpt_listening());
	seq_printf(m, "logins_accepted %u\nlogins_rejected %u\n",
		   c.req_accepted, c.req_rejected);
	seq_printf(m, "channels_created %u\nchannels_freed %u\nchannels_alive %u\n",
		   c.ch_alloc, c.ch_freed, c.ch_alloc - c.ch_freed);
	seq_printf(m, "cm_ids_destroyed %u\nrelease_twice %u\n",
		   c.cm_id_destroyed, c.release_twice);
	seq_printf(m, "ius_received %u\n", c.iu_received);
	seq_printf(m, "cmds %u\nrsps %u\ncmd_errors %u\nbusy %u\nbad_iu %u\n",
		   c.cmds, c.rsps, c.cmd_errors, c.busy, c.bad_iu);
	seq_printf(m, "tmf %u\naborted %u\nabort_in_read %u\n",
		   c.tmf, c.aborted, c.abort_in_read);
	seq_printf(m, "rdma_reads %u\nrdma_writes %u\n", c.rdma_reads,
		   c.rdma_writes);
	seq_printf(m, "ctx_alive %u\nrw_ctx_alive %u\n", c.ctx_alive,
		   c.rw_ctx_alive);
	seq_printf(m, "over_credit %u\nno_ctx %u\nt_logouts %u\n",
		   c.over_credit, c.no_ctx, c.t_logouts);
	seq_printf(m, "lun_bytes %llu\n", cmkit_srpt_lun_bytes());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(srpt_stats);

/**
 * cmkit_srpt_ctl - run one control-plane command, as a write to ctl does
 * @cmd: the command line
 *
 * Return: the command's result: 0 or a negative errno.
 */
int cmkit_srpt_ctl(const char *cmd)
{
	char line[64];

	if (strscpy(line, cmd, sizeof(line)) < 0)
		return -EINVAL;
	return cmkit_ctl_exec(&cmkit_srpt_control, line);
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_srpt_ctl);

/**
 * cmkit_srpt_stats_read - what reading cmkit/srpt/stats gives
 * @buf: filled in, NUL-terminated
 * @len: room at @buf
 *
 * Return: the length of the text, or -EOVERFLOW if it did not fit.
 */
int cmkit_srpt_stats_read(char *buf, size_t len)
{
	struct seq_file m = { .buf = buf, .size = len - 1 };

	srpt_stats_show(&m, NULL);
	if (seq_has_overflowed(&m))
		return -EOVERFLOW;
	buf[m.count] = '\0';
	return m.count;
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_srpt_stats_read);

static const struct cmkit_ctl_file srpt_ctl_files[] = {
	{ "targets", &srpt_targets_fops },
	{ "stats", &srpt_stats_fops },
};

/* cmkit/srpt/: the control plane core/main.c brings up and down. */
struct cmkit_ctl cmkit_srpt_control = {
	.name = "srpt",
	.lock = __MUTEX_INITIALIZER(cmkit_srpt_control.lock),
	.command = srpt_ctl_command,
	.files = srpt_ctl_files,
	.nr_files = ARRAY_SIZE(srpt_ctl_files),
	.fault = &cmkit_srpt_fault_points,
};
