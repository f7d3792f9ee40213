/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmkit: tracepoints of the module's core (system cmkit).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM cmkit

#if !defined(_CMKIT_CORE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _CMKIT_CORE_TRACE_H

#include <linux/tracepoint.h>

/* A failure injected at a consumer's fault point (cmkit_should_fail()). */
TRACE_EVENT(cmkit_fault,
	    TP_PROTO(const char *consumer, const char *step),
	    TP_ARGS(consumer, step),
	    TP_STRUCT__entry(__array(char, consumer, 8)
			     __array(char, step, 24)),
	    TP_fast_assign(strscpy(__entry->consumer, consumer, sizeof(__entry->consumer));
			   strscpy(__entry->step, step, sizeof(__entry->step));),
	    TP_printk("%s: injected a failure at step %s",
		      __entry->consumer, __entry->step)
);

#endif /* _CMKIT_CORE_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH core
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
