/* SPDX-License-Identifier: MIT */
/*
 * A hash index over an array of strings that the caller owns and only
 * appends to: finding a key among n is O(1), so duplicate-key checks and
 * merges of untrusted maps stay linear in the number of keys.
 *
 * The hash is SipHash-2-4 under a per-process random key, so that input
 * crafted to collide cannot turn the index back into a list.  The index
 * holds positions, never the strings: entry i is read back through the
 * caller's key function, so replacing entry i by an equal string keeps the
 * index valid.  Removing or reordering entries needs nt_strindex_reset().
 */
#ifndef NT_STRINDEX_H
#define NT_STRINDEX_H

#include <stddef.h>
#include <stdint.h>

/* The string at position i of the caller's array. */
typedef const char *(*nt_strindex_key_fn)(const void *arr, size_t i);

struct nt_strindex {
	size_t *slot;		/* position + 1; 0 is an empty slot */
	size_t cap;		/* a power of two, or 0 */
	size_t n;		/* positions 0..n-1 are indexed */
};

/* Indexes positions up to n - 1 that are not indexed yet, then looks s
 * up.  Returns its position, or SIZE_MAX.  When two positions hold equal
 * strings the first one is found. */
size_t nt_strindex_find(struct nt_strindex *x, const void *arr, size_t n,
			nt_strindex_key_fn key, const char *s);
void nt_strindex_reset(struct nt_strindex *x);

#endif
