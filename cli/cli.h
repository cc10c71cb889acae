/* SPDX-License-Identifier: MIT */
/* Subcommands: one file each, dispatched from main.c's table. */
#ifndef NT_CLI_H
#define NT_CLI_H

#include <stdbool.h>

#include "../compiler/language/load.h"

/* Exit codes (nettune(1), EXIT STATUS). */
enum {
	NT_EXIT_OK = 0,
	NT_EXIT_FAIL = 1,		/* error; invalid profile; apply failed and rolled back */
	NT_EXIT_CHANGES = 2,		/* plan: changes pending; watch/drift: host differs */
	NT_EXIT_ROLLBACK_INCOMPLETE = 3,
	NT_EXIT_USAGE = 64,		/* bad command line (sysexits EX_USAGE) */
};

struct nt_globals {
	const char *netns;
	const char *root;		/* prefix for /proc and /sys */
	int verbose;
	const char **profile_path;
	size_t nprofile_path;
	bool color;			/* stdout is a TTY and NO_COLOR is unset */
	bool any_host;			/* --any-host */
};

extern struct nt_globals nt_g;

struct nt_load_opts nt_cli_load_opts(void);
/* Prints "nettune CMD: msg" to stderr and returns NT_EXIT_USAGE. */
int nt_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

int cmd_validate(int argc, char **argv);
int cmd_caps(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_emit(int argc, char **argv);
int cmd_collect(int argc, char **argv);
int cmd_schema(int argc, char **argv);
int cmd_apply(int argc, char **argv);
int cmd_observe(int argc, char **argv);
int cmd_rollback(int argc, char **argv);
int cmd_confirm(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_agent(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int cmd_keygen(int argc, char **argv);
int cmd_sign(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_compile(int argc, char **argv);

/* Reserve the top reserve bytes (at most 30 MiB) of the heap in
 * transparent huge pages (heap.c); for one-shot commands. */
void nt_heap_hugepages(size_t reserve);
#endif
