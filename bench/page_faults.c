/* SPDX-License-Identifier: MIT */
/*
 * What a first touch of anonymous memory costs on this machine: 2 MiB
 * touched one byte per 4 KiB page, (a) faulted a page at a time, (b)
 * populated by one madvise(MADV_POPULATE_WRITE), (c) in a region marked
 * MADV_HUGEPAGE (one 2 MiB page when the kernel has one).  Five rounds of
 * each, interleaved; prints every round.  cli/heap.c puts the heap of a
 * one-shot command in huge pages because of (a) against (c).
 *
 *   cc -O2 -o page_faults bench/page_faults.c && ./page_faults
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23	/* Linux 5.14 */
#endif

#define SIZE ((size_t)2 << 20)

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static double touch(int how)
{
	/* 4 MiB mapped so that an aligned 2 MiB lies inside it */
	char *m = mmap(NULL, 2 * SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *p;
	double t;
	size_t i;

	if (m == MAP_FAILED)
		return -1;
	p = (char *)(((uintptr_t)m + SIZE - 1) & ~(uintptr_t)(SIZE - 1));
	t = now_ms();
	if (how == 1)
		madvise(p, SIZE, MADV_POPULATE_WRITE);
	if (how == 2)
		madvise(p, SIZE, MADV_HUGEPAGE);
	for (i = 0; i < SIZE; i += 4096)
		((volatile char *)p)[i] = 1;
	t = now_ms() - t;
	munmap(m, 2 * SIZE);
	return t;
}

int main(void)
{
	static const char *const name[] = {"4 KiB faults", "MADV_POPULATE_WRITE", "MADV_HUGEPAGE"};
	int r, how;

	for (r = 0; r < 5; r++)
		for (how = 0; how < 3; how++)
			printf("round %d  %-20s %.3f ms for %zu pages\n", r + 1, name[how], touch(how),
			       SIZE / 4096);
	return 0;
}
