/* SPDX-License-Identifier: MIT */
/* A small JSON reader (snapshots, plan manifests) that keeps line:col of
 * every value, so that rejections of untrusted files are located. */
#ifndef NT_JSON_H
#define NT_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/diag.h"

enum nt_jtype { NT_J_NULL, NT_J_BOOL, NT_J_NUM, NT_J_STR, NT_J_ARR, NT_J_OBJ };

struct nt_json {
	enum nt_jtype t;
	struct nt_mark mark;
	bool b;
	double num;
	bool is_int;		/* number was written without fraction/exponent */
	int64_t i;
	char *s;		/* NT_J_STR; also the raw text of NT_J_NUM */
	size_t n;
	char **keys;		/* NT_J_OBJ */
	struct nt_json **v;	/* NT_J_OBJ values, NT_J_ARR items */
	void *arena;		/* the root of a parse: holds every node and string */
};

#define NT_JSON_MAX_BYTES (64u << 20)
#define NT_JSON_MAX_DEPTH 64

struct nt_json *nt_json_parse(const char *file, const char *data, size_t len, struct nt_diags *d);
struct nt_json *nt_json_parse_file(const char *path, struct nt_diags *d);
/* Frees a tree nt_json_parse returned (its nodes cannot be freed one by one). */
void nt_json_free(struct nt_json *j);
const struct nt_json *nt_json_get(const struct nt_json *o, const char *key);
/* Typed getters: false (and a located error when d is set) on a wrong type. */
bool nt_json_str(const struct nt_json *o, const char *key, const char **out, bool required,
		 struct nt_diags *d);
bool nt_json_u32(const struct nt_json *o, const char *key, uint32_t *out, bool required,
		 struct nt_diags *d);
bool nt_json_bool(const struct nt_json *o, const char *key, bool *out, bool required,
		  struct nt_diags *d);
#endif
