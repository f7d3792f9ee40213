/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmkit_bench: what the benchmark module's files share.
 *
 * cmkit_bench.ko is built only for `make bench` (CMKIT_BENCH=1) and never
 * loaded by `make test`: benchmarks are not tests.  Each benchmark runs when
 * its command is written to cmkit_bench/run in debugfs and leaves one JSON
 * line in cmkit_bench/result (times in microseconds, one decimal, from
 * ktime_get(): the guest's CLOCK_MONOTONIC).
 */
#ifndef CMKIT_BENCH_H
#define CMKIT_BENCH_H

#include <linux/types.h>

/**
 * struct bench_out - where a benchmark writes its JSON line
 * @buf: the buffer
 * @size: its size
 * @len: bytes written so far (output past @size is cut, never overflows)
 */
struct bench_out {
	char *buf;
	size_t size;
	size_t len;
};

__printf(2, 3) void bench_printf(struct bench_out *out, const char *fmt, ...);
void bench_us(struct bench_out *out, const char *key, s64 ns);
void bench_samples(struct bench_out *out, const char *key, s64 *ns, u32 n);
unsigned long bench_timeout(void);

int bench_cm_run(char *args, struct bench_out *out);
int bench_irdma_run(char *args, struct bench_out *out);

#endif /* CMKIT_BENCH_H */
