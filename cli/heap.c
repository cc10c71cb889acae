/* SPDX-License-Identifier: MIT */
/*
 * The heap of a one-shot command in transparent huge pages.
 *
 * Every page a process touches first costs a page fault, and in a virtual
 * machine one costs ~12 us: bench/page_faults.c measured 6.3-7.2 ms for
 * 512 of them on the bench machine, against 0.12-0.17 ms for one 2 MiB
 * huge page.  A no-op apply over 1024 devices touches ~19 MiB of heap
 * (4800 faults, about half of its time).  So before a command runs,
 * glibc's heap is grown once past the next 2 MiB boundary by `reserve`
 * bytes, untouched, and that part is marked MADV_HUGEPAGE: what the
 * command then allocates is faulted in 2 MiB at a time.  An unused
 * reservation costs address space and commit charge, nothing else; a
 * command that outgrows it grows the heap as before.  glibc keeps the
 * reservation (no trim) and serves large blocks from it too (no mmap per
 * block).
 *
 * Not done: for the long-running commands (the agent lives for months in
 * ~6 MB; watch can sample for days), under a host that does not
 * overcommit (vm.overcommit_memory = 2: the reservation would be charged
 * to every fork), under MALLOC_PERTURB_ (a debugging aid, set by meson's
 * test runner, that writes every block it hands out), and in builds whose
 * allocator is not glibc's (sanitizers).
 */
#include <fcntl.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli.h"

#define NT_HUGE ((uintptr_t)2 << 20)

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || \
	__has_feature(thread_sanitizer) || __has_feature(hwaddress_sanitizer)
#define NT_OTHER_MALLOC 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || \
	defined(__SANITIZE_HWADDRESS__) || !defined(__GLIBC__)
#define NT_OTHER_MALLOC 1
#endif

/* the block that moves the top of the heap to a 2 MiB boundary, kept
 * (reachable, untouched) for the life of the process */
static void *nt_heap_filler;

#ifndef NT_OTHER_MALLOC
static bool strict_overcommit(void)
{
	char c = 0;
	int fd = open("/proc/sys/vm/overcommit_memory", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	if (read(fd, &c, 1) != 1)
		c = 0;
	close(fd);
	return c == '2';
}
#endif

void nt_heap_hugepages(size_t reserve)
{
#ifdef NT_OTHER_MALLOC
	(void)reserve;
#else
	const char *perturb = getenv("MALLOC_PERTURB_");
	struct mallinfo2 mi;
	uintptr_t top, aligned, end;

	/* M_MMAP_THRESHOLD's maximum is 32 MiB on 64-bit glibc */
	if (reserve > (30u << 20) || (perturb && *perturb && atoi(perturb)) || strict_overcommit())
		return;
	/* the main arena's top chunk ends at the break: keepcost is its size */
	mi = mallinfo2();
	end = (uintptr_t)sbrk(0);
	if (end == (uintptr_t)-1 || !mi.keepcost || mi.keepcost > end)
		return;
	top = end - mi.keepcost;
	if (!mallopt(M_TRIM_THRESHOLD, (int)(reserve * 2)) ||
	    !mallopt(M_MMAP_THRESHOLD, (int)reserve + (1 << 20)) || !mallopt(M_TOP_PAD, (int)reserve))
		return;
	/* A chunk from the start of the top chunk to the first 2 MiB boundary
	 * past the break: larger than the top chunk, so glibc grows the heap
	 * once, by what it lacks plus the top pad, and the next chunk starts
	 * at the boundary (a chunk of a request r is r + 8 rounded up to 16,
	 * its header 16 bytes before what malloc returns). */
	aligned = (end + 64 + NT_HUGE - 1) & ~(NT_HUGE - 1);
	nt_heap_filler = malloc(aligned - top - 32);
	mallopt(M_TOP_PAD, 128 * 1024);	/* glibc's default */
	end = (uintptr_t)sbrk(0);
	if (nt_heap_filler && (uintptr_t)nt_heap_filler == top + 16 && end > aligned + NT_HUGE)
		madvise((void *)aligned, (end - aligned) & ~(NT_HUGE - 1), MADV_HUGEPAGE);
#endif
}
