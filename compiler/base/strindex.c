/* SPDX-License-Identifier: MIT */
/* Keyed string hash (SipHash-2-4) and an append-only index of string positions. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "strindex.h"

static uint64_t sip_k0, sip_k1;
static bool sip_keyed;

static void sip_key(void)
{
	uint64_t k[2];

	if (getrandom(k, sizeof(k), GRND_NONBLOCK) != (ssize_t)sizeof(k)) {
		/* early boot without entropy: worse keys, still linear on
		 * ordinary input */
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		k[0] = (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
		k[1] = (uint64_t)ts.tv_sec ^ (uint64_t)(uintptr_t)&ts;
	}
	sip_k0 = k[0];
	sip_k1 = k[1];
	sip_keyed = true;
}

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND							\
	do {								\
		v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32); \
		v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2;			\
		v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0;			\
		v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32); \
	} while (0)

static uint64_t strhash(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	uint64_t v0, v1, v2, v3, m, b = (uint64_t)len << 56;
	size_t i, left = len & 7;

	if (!sip_keyed)
		sip_key();
	v0 = sip_k0 ^ 0x736f6d6570736575ull;
	v1 = sip_k1 ^ 0x646f72616e646f6dull;
	v2 = sip_k0 ^ 0x6c7967656e657261ull;
	v3 = sip_k1 ^ 0x7465646279746573ull;
	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&m, p + i, 8);	/* little-endian hosts only */
		v3 ^= m;
		SIPROUND;
		SIPROUND;
		v0 ^= m;
	}
	for (; left; left--)
		b |= (uint64_t)p[i + left - 1] << (8 * (left - 1));
	v3 ^= b;
	SIPROUND;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}

static void put(struct nt_strindex *x, const void *arr, nt_strindex_key_fn key, size_t i)
{
	const char *s = key(arr, i);
	size_t mask = x->cap - 1, h = (size_t)strhash(s, strlen(s)) & mask;

	while (x->slot[h]) {
		if (!strcmp(key(arr, x->slot[h] - 1), s))
			return;		/* a duplicate: the first position stays */
		h = (h + 1) & mask;
	}
	x->slot[h] = i + 1;
}

static void grow(struct nt_strindex *x, const void *arr, nt_strindex_key_fn key, size_t n)
{
	size_t cap = x->cap ? x->cap : 16, i;

	while (cap < 2 * n)
		cap *= 2;
	if (cap == x->cap)
		return;
	free(x->slot);
	x->slot = nt_xcalloc(cap, sizeof(*x->slot));
	x->cap = cap;
	for (i = 0; i < x->n; i++)
		put(x, arr, key, i);
}

size_t nt_strindex_find(struct nt_strindex *x, const void *arr, size_t n,
			nt_strindex_key_fn key, const char *s)
{
	size_t mask, h;

	if (n < x->n)		/* entries were removed behind our back */
		nt_strindex_reset(x);
	if (!n)
		return SIZE_MAX;
	if (2 * n > x->cap)
		grow(x, arr, key, n);
	for (; x->n < n; x->n++)
		put(x, arr, key, x->n);
	mask = x->cap - 1;
	for (h = (size_t)strhash(s, strlen(s)) & mask; x->slot[h]; h = (h + 1) & mask)
		if (!strcmp(key(arr, x->slot[h] - 1), s))
			return x->slot[h] - 1;
	return SIZE_MAX;
}

void nt_strindex_reset(struct nt_strindex *x)
{
	free(x->slot);
	memset(x, 0, sizeof(*x));
}
