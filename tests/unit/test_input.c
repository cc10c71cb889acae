/* SPDX-License-Identifier: MIT */
/* Untrusted input helpers: offsets to line:column, the string index, safe file reads. */
#include <CUnit/Basic.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "diag.h"
#include "json.h"
#include "strindex.h"
#include "ytree.h"

static void t_mark(const char *data, size_t off, unsigned line, unsigned col)
{
	struct nt_mark m = nt_mark_at("f", data, strlen(data), off);

	CU_ASSERT_EQUAL(m.line, line);
	CU_ASSERT_EQUAL(m.col, col);
}

static void test_mark_at(void)
{
	t_mark("abc", 0, 1, 1);
	t_mark("abc", 2, 1, 3);
	t_mark("a\nbc", 3, 2, 2);
	t_mark("a\r\nbc", 4, 2, 2);		/* CR LF is one line end */
	t_mark("a\rbc", 3, 2, 2);		/* so is a lone CR */
	t_mark("\xc3\xa9\xc3\xa9x", 4, 1, 3);	/* columns count characters */
	t_mark("a\xff\xfex", 3, 1, 4);		/* an invalid byte is one column */
	t_mark("a\xc2\x85" "b", 3, 2, 1);	/* NEL ends a line, as in libyaml */
	t_mark("a\xe2\x80\xa8" "b", 4, 2, 1);	/* LS */
	t_mark("ab", 99, 1, 3);			/* past the end: the end */
}

static const char *key_at(const void *arr, size_t i)
{
	return ((const char *const *)arr)[i];
}

static void test_strindex(void)
{
	struct nt_strindex x = {0};
	char *keys[1000];
	size_t i;

	for (i = 0; i < 1000; i++)
		keys[i] = nt_xasprintf("k%zu", i % 600);	/* 600..999 repeat 0..399 */
	for (i = 1; i <= 1000; i++) {
		size_t at = nt_strindex_find(&x, keys, i - 1, key_at, keys[i - 1]);

		CU_ASSERT_EQUAL(at, i - 1 < 600 ? SIZE_MAX : i - 1 - 600);
	}
	CU_ASSERT_EQUAL(nt_strindex_find(&x, keys, 1000, key_at, "k599"), 599);
	CU_ASSERT_EQUAL(nt_strindex_find(&x, keys, 1000, key_at, "k600"), SIZE_MAX);
	/* fewer entries than indexed: the index starts again */
	CU_ASSERT_EQUAL(nt_strindex_find(&x, keys, 10, key_at, "k599"), SIZE_MAX);
	CU_ASSERT_EQUAL(nt_strindex_find(&x, keys, 10, key_at, "k9"), 9);
	nt_strindex_reset(&x);
	for (i = 0; i < 1000; i++)
		free(keys[i]);
}

static void test_ymap_index(void)
{
	struct nt_mark m = {"f", 1, 1};
	struct nt_ynode *map = nt_ynew(NT_Y_MAP, m);
	char name[32];
	size_t i, at;

	for (i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "k%zu", i);
		nt_ymap_set(map, nt_ynew_scalar(name, true, m), nt_ynew_scalar(name, true, m));
	}
	CU_ASSERT_EQUAL(map->n, 100);
	CU_ASSERT_PTR_NOT_NULL(nt_ymap_get(map, "k57", &at));
	CU_ASSERT_EQUAL(at, 57);
	nt_ymap_del(map, 10);		/* positions move: the index is rebuilt */
	CU_ASSERT_PTR_NULL(nt_ymap_get(map, "k10", NULL));
	CU_ASSERT_PTR_NOT_NULL(nt_ymap_get(map, "k57", &at));
	CU_ASSERT_EQUAL(at, 56);
	nt_ymap_set(map, nt_ynew_scalar("k57", true, m), nt_ynew_scalar("new", true, m));
	CU_ASSERT_EQUAL(map->n, 99);
	CU_ASSERT_STRING_EQUAL(nt_ymap_get(map, "k57", NULL)->scalar, "new");
	nt_yfree(map);
}

static void test_read_input(void)
{
	char dir[] = "/tmp/nt-input-XXXXXX", why[256], *p;
	struct nt_buf b;
	FILE *f;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	p = nt_xasprintf("%s/fifo", dir);
	CU_ASSERT_EQUAL(mkfifo(p, 0600), 0);
	CU_ASSERT_EQUAL(nt_read_input(p, 100, 0, &b, why, sizeof(why)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "not a regular file (fifo)");
	unlink(p);
	free(p);
	CU_ASSERT_EQUAL(nt_read_input(dir, 100, 0, &b, why, sizeof(why)), -EISDIR);
	CU_ASSERT_STRING_EQUAL(why, "not a regular file (directory)");
	p = nt_xasprintf("%s/file", dir);
	f = fopen(p, "w");
	fputs("0123456789", f);
	fclose(f);
	CU_ASSERT_EQUAL(nt_read_input(p, 10, 0, &b, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(b.n, 10);
	CU_ASSERT_STRING_EQUAL(b.p, "0123456789");
	nt_buf_free(&b);
	CU_ASSERT_EQUAL(nt_read_input(p, 9, 0, &b, why, sizeof(why)), -EFBIG);
	CU_ASSERT_STRING_EQUAL(why, "larger than 9 bytes");
	{
		char *l = nt_xasprintf("%s/link", dir);

		CU_ASSERT_EQUAL(symlink(p, l), 0);
		CU_ASSERT_EQUAL(nt_read_input(l, 100, 0, &b, why, sizeof(why)), 0);
		nt_buf_free(&b);
		CU_ASSERT_EQUAL(nt_read_input(l, 100, NT_IN_NOFOLLOW, &b, why, sizeof(why)),
				-ELOOP);
		CU_ASSERT_STRING_EQUAL(why, "is a symbolic link (not followed)");
		unlink(l);
		free(l);
	}
	unlink(p);
	free(p);
	rmdir(dir);
}

static void test_json_positions(void)
{
	static const char dup[] = "{\"a\": 1, \"b\": 2, \"c\": 3, \"d\": 4, \"e\": 5,\n"
				  " \"f\": 6, \"g\": 7, \"h\": 8, \"i\": 9, \"j\": 10, \"\xc3\xa9\": 0, \"a\": 2}";
	static const char bad[] = "{\"a\": \"x\xc3\"}";
	struct nt_diags d = {0};

	CU_ASSERT_PTR_NULL(nt_json_parse("f.json", dup, strlen(dup), &d));
	CU_ASSERT_EQUAL_FATAL(d.n, 1);
	CU_ASSERT_STRING_EQUAL(d.v[0].msg, "duplicate key \"a\"");
	CU_ASSERT_EQUAL(d.v[0].mark.line, 2);
	CU_ASSERT_EQUAL(d.v[0].mark.col, 51);
	nt_diags_free(&d);
	CU_ASSERT_PTR_NULL(nt_json_parse("f.json", bad, strlen(bad), &d));
	CU_ASSERT_EQUAL_FATAL(d.n, 1);
	CU_ASSERT_STRING_EQUAL(d.v[0].msg, "invalid UTF-8 in string");
	CU_ASSERT_EQUAL(d.v[0].mark.col, 9);
	nt_diags_free(&d);
}

int main(void)
{
	CU_pSuite s;
	unsigned fails;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("input", NULL, NULL);
	CU_add_test(s, "byte offset to line:column", test_mark_at);
	CU_add_test(s, "string index", test_strindex);
	CU_add_test(s, "YAML map index", test_ymap_index);
	CU_add_test(s, "regular files only", test_read_input);
	CU_add_test(s, "JSON positions", test_json_positions);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	fails = CU_get_number_of_failures() + CU_get_number_of_failure_records();
	CU_cleanup_registry();
	nt_intern_free();
	return fails ? 1 : 0;
}
