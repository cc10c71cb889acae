/* SPDX-License-Identifier: MIT */
/*
 * The heap of a one-shot command in transparent huge pages.
 *
 * Every page a process touches first costs a page fault, and in a virtual
 * machine (EPT: two-level page walks, the host's own faults) one costs
 * ~10 us: bench/NOTES.md measured 5.5 ms for 512 faults on the bench
 * machine, against 0.1-0.2 ms for one 2 MiB huge page.  A no-op apply over
 * 1024 devices touches ~19 MiB of heap (4800 faults, ~50 ms of its ~120).
 * So before a command runs, the top of glibc's heap is reserved, starting
 * at a 2 MiB boundary, and marked MADV_HUGEPAGE: what the command then
 * allocates is faulted in 2 MiB at a time.  Nothing is touched here, so an
 * unused reservation costs only address space; a command that outgrows
 * it grows the heap as before.  glibc keeps the reservation (no trim) and
 * serves large blocks from it too (no mmap per block).  The agent, which
 * lives for months in ~6 MB, does not do this; neither do sanitizer
 * builds, whose allocator is not glibc's.
 */
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli.h"

#define NT_HUGE ((uintptr_t)2 << 20)

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define NT_OTHER_MALLOC 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define NT_OTHER_MALLOC 1
#endif

/* the untouched block that moves the top of the heap to a 2 MiB boundary;
 * kept (reachable) for the life of the process */
static void *nt_heap_filler;

void nt_heap_hugepages(size_t reserve)
{
#ifdef NT_OTHER_MALLOC
	(void)reserve;
#else
	struct mallinfo2 mi;
	uintptr_t top, aligned, end;
	void *block;

	/* M_MMAP_THRESHOLD's maximum is 32 MiB on 64-bit glibc */
	if (reserve > (30u << 20) || !mallopt(M_TRIM_THRESHOLD, (int)(reserve * 2)) ||
	    !mallopt(M_MMAP_THRESHOLD, (int)reserve + (1 << 20)))
		return;
	/* the main arena's top chunk ends at the break: keepcost is its size */
	mi = mallinfo2();
	end = (uintptr_t)sbrk(0);
	if (end == (uintptr_t)-1 || !mi.keepcost || mi.keepcost > end)
		return;
	top = end - mi.keepcost;
	aligned = (top + 64 + NT_HUGE - 1) & ~(NT_HUGE - 1);
	nt_heap_filler = malloc(aligned - top - 32);
	block = malloc(reserve);
	end = (uintptr_t)sbrk(0);
	/* only when both came from the top of the heap, as asked */
	if (nt_heap_filler && block && (uintptr_t)block > top && (uintptr_t)block < end &&
	    end - aligned >= NT_HUGE)
		madvise((void *)aligned, (end - aligned) & ~(NT_HUGE - 1), MADV_HUGEPAGE);
	free(block);
#endif
}
