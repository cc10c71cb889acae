/* SPDX-License-Identifier: MIT */
/* CPU sets: the kernel's cpulist ("0-13,28-41") and hex mask formats. */
#ifndef NT_CPUSET_H
#define NT_CPUSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/buf.h"

#define NT_MAX_CPUS 4096

struct nt_cpuset {
	uint64_t w[NT_MAX_CPUS / 64];
};

/* Parses a cpulist; on error returns false and sets *err to a message. */
bool nt_cpuset_parse(const char *s, struct nt_cpuset *out, const char **err);
/* Parses a kernel hex mask ("ff,00000000"); false on error. */
bool nt_cpuset_parse_mask(const char *s, struct nt_cpuset *out);
void nt_cpuset_clear(struct nt_cpuset *s);
void nt_cpuset_set(struct nt_cpuset *s, unsigned cpu);
bool nt_cpuset_has(const struct nt_cpuset *s, unsigned cpu);
unsigned nt_cpuset_count(const struct nt_cpuset *s);
bool nt_cpuset_empty(const struct nt_cpuset *s);
bool nt_cpuset_equal(const struct nt_cpuset *a, const struct nt_cpuset *b);
void nt_cpuset_and(struct nt_cpuset *d, const struct nt_cpuset *a);
void nt_cpuset_or(struct nt_cpuset *d, const struct nt_cpuset *a);
void nt_cpuset_andnot(struct nt_cpuset *d, const struct nt_cpuset *a);
bool nt_cpuset_intersects(const struct nt_cpuset *a, const struct nt_cpuset *b);
/* Next CPU >= from in s, or -1. */
int nt_cpuset_next(const struct nt_cpuset *s, unsigned from);
/* "0-3,8" form, "" when empty. */
void nt_cpuset_format(const struct nt_cpuset *s, struct nt_buf *b);
char *nt_cpuset_str(const struct nt_cpuset *s);
/* Kernel bitmap form: 32-bit hex groups separated by ',', covering ncpus. */
void nt_cpuset_format_mask(const struct nt_cpuset *s, unsigned ncpus, struct nt_buf *b);

#endif
