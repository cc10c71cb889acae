/* SPDX-License-Identifier: MIT */
/* CPU list and mask parsing/formatting, as /proc and /sys write them. */
#include <ctype.h>
#include <string.h>

#include "cpuset.h"

void nt_cpuset_clear(struct nt_cpuset *s)
{
	memset(s, 0, sizeof(*s));
}

void nt_cpuset_set(struct nt_cpuset *s, unsigned cpu)
{
	if (cpu < NT_MAX_CPUS)
		s->w[cpu / 64] |= 1ull << (cpu % 64);
}

bool nt_cpuset_has(const struct nt_cpuset *s, unsigned cpu)
{
	return cpu < NT_MAX_CPUS && (s->w[cpu / 64] >> (cpu % 64)) & 1;
}

unsigned nt_cpuset_count(const struct nt_cpuset *s)
{
	unsigned n = 0;
	size_t i;

	for (i = 0; i < NT_MAX_CPUS / 64; i++)
		n += (unsigned)__builtin_popcountll(s->w[i]);
	return n;
}

bool nt_cpuset_empty(const struct nt_cpuset *s)
{
	size_t i;

	for (i = 0; i < NT_MAX_CPUS / 64; i++)
		if (s->w[i])
			return false;
	return true;
}

bool nt_cpuset_equal(const struct nt_cpuset *a, const struct nt_cpuset *b)
{
	return !memcmp(a, b, sizeof(*a));
}

void nt_cpuset_and(struct nt_cpuset *d, const struct nt_cpuset *a)
{
	size_t i;

	for (i = 0; i < NT_MAX_CPUS / 64; i++)
		d->w[i] &= a->w[i];
}

void nt_cpuset_or(struct nt_cpuset *d, const struct nt_cpuset *a)
{
	size_t i;

	for (i = 0; i < NT_MAX_CPUS / 64; i++)
		d->w[i] |= a->w[i];
}

void nt_cpuset_andnot(struct nt_cpuset *d, const struct nt_cpuset *a)
{
	size_t i;

	for (i = 0; i < NT_MAX_CPUS / 64; i++)
		d->w[i] &= ~a->w[i];
}

bool nt_cpuset_intersects(const struct nt_cpuset *a, const struct nt_cpuset *b)
{
	size_t i;

	for (i = 0; i < NT_MAX_CPUS / 64; i++)
		if (a->w[i] & b->w[i])
			return true;
	return false;
}

/* The first CPU >= from that is set (want) or clear (!want), or
 * NT_MAX_CPUS: a word at a time. */
static unsigned scan(const struct nt_cpuset *s, unsigned from, bool want)
{
	unsigned i = from / 64;
	uint64_t w;

	if (from >= NT_MAX_CPUS)
		return NT_MAX_CPUS;
	w = (want ? s->w[i] : ~s->w[i]) & (~0ull << (from % 64));
	while (!w) {
		if (++i >= NT_MAX_CPUS / 64)
			return NT_MAX_CPUS;
		w = want ? s->w[i] : ~s->w[i];
	}
	return i * 64 + (unsigned)__builtin_ctzll(w);
}

int nt_cpuset_next(const struct nt_cpuset *s, unsigned from)
{
	unsigned c = scan(s, from, true);

	return c < NT_MAX_CPUS ? (int)c : -1;
}

static bool parse_uint(const char **p, unsigned *out)
{
	unsigned long v = 0;
	const char *s = *p;

	if (!isdigit((unsigned char)*s))
		return false;
	while (isdigit((unsigned char)*s)) {
		v = v * 10 + (unsigned)(*s - '0');
		if (v >= NT_MAX_CPUS)
			return false;
		s++;
	}
	*p = s;
	*out = (unsigned)v;
	return true;
}

bool nt_cpuset_parse(const char *s, struct nt_cpuset *out, const char **err)
{
	const char *p = s;

	nt_cpuset_clear(out);
	while (*p == ' ')
		p++;
	if (!*p) {
		*err = "empty CPU list";
		return false;
	}
	for (;;) {
		unsigned a, b, stride = 1, c;

		if (!parse_uint(&p, &a)) {
			*err = "expected a CPU number below 4096";
			return false;
		}
		b = a;
		if (*p == '-') {
			p++;
			if (!parse_uint(&p, &b)) {
				*err = "expected a CPU number below 4096 after '-'";
				return false;
			}
			if (b < a) {
				*err = "range end is below its start";
				return false;
			}
			if (*p == ':') {
				p++;
				if (!parse_uint(&p, &stride) || !stride) {
					*err = "expected a stride after ':'";
					return false;
				}
			}
		}
		for (c = a; c <= b; c += stride)
			nt_cpuset_set(out, c);
		while (*p == ' ')
			p++;
		if (!*p || *p == '\n')
			break;
		if (*p != ',') {
			*err = "expected ',' between CPU ranges";
			return false;
		}
		p++;
	}
	return true;
}

bool nt_cpuset_parse_mask(const char *s, struct nt_cpuset *out)
{
	size_t len, i;
	unsigned bit = 0;

	nt_cpuset_clear(out);
	len = strlen(s);
	while (len && (s[len - 1] == '\n' || s[len - 1] == ' '))
		len--;
	if (!len)
		return false;
	for (i = len; i-- > 0;) {
		int v;

		if (s[i] == ',')
			continue;
		if (!isxdigit((unsigned char)s[i]))
			return false;
		v = isdigit((unsigned char)s[i]) ? s[i] - '0' : (tolower((unsigned char)s[i]) - 'a' + 10);
		for (int k = 0; k < 4; k++, bit++)
			if (v & (1 << k)) {
				if (bit >= NT_MAX_CPUS)
					return false;
				nt_cpuset_set(out, bit);
			}
	}
	return true;
}

void nt_cpuset_format(const struct nt_cpuset *s, struct nt_buf *b)
{
	int c = nt_cpuset_next(s, 0);
	bool first = true;

	nt_buf_puts(b, "");
	while (c >= 0) {
		int e = (int)scan(s, (unsigned)c, false) - 1;	/* the range's last CPU */

		if (!first)
			nt_buf_putc(b, ',');
		nt_buf_put_u64(b, (uint64_t)c);
		if (e != c) {
			nt_buf_putc(b, '-');
			nt_buf_put_u64(b, (uint64_t)e);
		}
		first = false;
		c = nt_cpuset_next(s, (unsigned)e + 1);
	}
}

char *nt_cpuset_str(const struct nt_cpuset *s)
{
	struct nt_buf b = {0};

	nt_cpuset_format(s, &b);
	return nt_buf_take(&b);
}

void nt_cpuset_format_mask(const struct nt_cpuset *s, unsigned ncpus, struct nt_buf *b)
{
	int groups = (int)((ncpus + 31) / 32), g;

	if (groups < 1)
		groups = 1;
	for (g = groups - 1; g >= 0; g--) {
		uint32_t v = (uint32_t)(s->w[g / 2] >> ((g % 2) * 32));
		char hex[9];
		int k;

		/* "%08x", without printf: a plan writes one mask per queue */
		for (k = 7; k >= 0; k--, v >>= 4)
			hex[k] = "0123456789abcdef"[v & 15];
		hex[8] = ',';
		nt_buf_putn(b, hex, g ? 9 : 8);
	}
}
