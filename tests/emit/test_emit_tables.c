/* SPDX-License-Identifier: MIT */
/* CUnit: the emitters' per-kind tables cover the kind enum; quoting and name checks. */
#include <CUnit/Basic.h>
#include <stdlib.h>
#include <string.h>

#include "appliers/emit.h"
#include "appliers/windows/authenticode.h"

static void test_sh_covers_linux_kinds(void)
{
	int k;

	for (k = 0; k < NT_K__COUNT; k++) {
		bool win = nt_kinds[k].flags & NT_KF_WINDOWS;

		CU_ASSERT_PTR_NOT_NULL(nt_kinds[k].name);
		if (win) {
			CU_ASSERT_PTR_NULL(nt_emit_sh_row((enum nt_kind_id)k));
		} else if (!nt_emit_sh_row((enum nt_kind_id)k)) {
			fprintf(stderr, "no sh row for linux kind %s\n", nt_kinds[k].name);
			CU_FAIL("sh table misses a Linux kind");
		}
	}
}

static void test_ps1_covers_windows_kinds(void)
{
	int k;

	for (k = 0; k < NT_K__COUNT; k++) {
		bool win = nt_kinds[k].flags & NT_KF_WINDOWS;
		const char *r = nt_emit_ps1_row((enum nt_kind_id)k);

		if (!win) {
			CU_ASSERT_PTR_NULL(r);
		} else if (!r) {
			fprintf(stderr, "no ps1 row for windows kind %s\n", nt_kinds[k].name);
			CU_FAIL("ps1 table misses a Windows kind");
		} else {
			/* the row is keyed by the kind's own name */
			CU_ASSERT_STRING_EQUAL(r, nt_kinds[k].name);
		}
	}
}

static char *q(void (*fn)(struct nt_buf *, const char *), const char *s)
{
	struct nt_buf b = {0};

	fn(&b, s);
	return nt_buf_take(&b);
}

static void check(void (*fn)(struct nt_buf *, const char *), const char *in, const char *want)
{
	char *got = q(fn, in);

	CU_ASSERT_STRING_EQUAL(got, want);
	free(got);
}

static void test_quoting(void)
{
	check(nt_sh_quote, "eth0", "'eth0'");
	check(nt_sh_quote, "a'b", "'a'\\''b'");
	check(nt_sh_quote, "$(x)`y`", "''\\$'(x)'\\`'y'\\`''");
	check(nt_sh_quote, "", "''");
	check(nt_ps_quote, "Ethernet 2", "'Ethernet 2'");
	check(nt_ps_quote, "it's", "'it''s'");
	check(nt_ps_quote, "a\xe2\x80\x98" "b\xe2\x80\x99" "c\xe2\x80\x9a" "d\xe2\x80\x9b",
	      "'a\xe2\x80\x98\xe2\x80\x98" "b\xe2\x80\x99\xe2\x80\x99" "c\xe2\x80\x9a\xe2\x80\x9a"
	      "d\xe2\x80\x9b\xe2\x80\x9b'");
	/* U+201C double quote is not a single quote: left alone */
	check(nt_ps_quote, "\xe2\x80\x9cx", "'\xe2\x80\x9cx'");
	check(nt_ps_quote, "$(calc)", "'$(calc)'");
}

static void test_ps_names(void)
{
	CU_ASSERT_PTR_NULL(nt_ps_name_problem("Ethernet 2"));
	CU_ASSERT_PTR_NULL(nt_ps_name_problem("Ethernet 'x' $(y)"));
	CU_ASSERT_PTR_NULL(nt_ps_name_problem("\xe4\xbb\xa5\xe5\xa4\xaa\xe7\xbd\x91"));
	CU_ASSERT_PTR_NOT_NULL(nt_ps_name_problem(""));
	CU_ASSERT_STRING_EQUAL(nt_ps_name_problem("Eth*"),
			       "contains a wildcard character (* ? [ ]), which -Name would match as a pattern");
	CU_ASSERT_PTR_NOT_NULL(nt_ps_name_problem("Eth?"));
	CU_ASSERT_PTR_NOT_NULL(nt_ps_name_problem("Eth[0]"));
	CU_ASSERT_PTR_NOT_NULL(nt_ps_name_problem("Eth`0"));
	CU_ASSERT_PTR_NOT_NULL(nt_ps_name_problem("Eth\n0"));
	CU_ASSERT_PTR_NOT_NULL(nt_ps_name_problem("Eth\x7f"));
	CU_ASSERT_STRING_EQUAL(nt_ps_name_problem("Eth\xe2\x80\xa8"), "contains a Unicode line separator");
	/* invalid UTF-8 could hide a quote byte sequence from the quoter */
	CU_ASSERT_STRING_EQUAL(nt_ps_name_problem("Eth\xe2\x80"), "is not valid UTF-8");
	CU_ASSERT_STRING_EQUAL(nt_ps_name_problem("\xc0\xa7"), "is not valid UTF-8");
}

static void encoded(const char *in, bool crlf, const char *want)
{
	struct nt_buf i = {0}, o = {0};

	nt_buf_puts(&i, in);
	nt_ps1_encode(&i, crlf, &o);
	CU_ASSERT_EQUAL(o.n, strlen(want));
	CU_ASSERT_TRUE(o.n == strlen(want) && !memcmp(o.p, want, o.n));
	nt_buf_free(&i);
	nt_buf_free(&o);
}

static void test_ps1_encode(void)
{
	/* ASCII stays as it is; LF only when not signing */
	encoded("a\nb\n", false, "a\nb\n");
	encoded("a\nb\n", true, "a\r\nb\r\n");
	/* an existing CR is not doubled */
	encoded("a\r\nb\n", true, "a\r\nb\r\n");
	/* any non-ASCII byte: a UTF-8 BOM, once */
	encoded("'Eth\xe2\x80\x99'\n", false, "\xef\xbb\xbf'Eth\xe2\x80\x99'\n");
	encoded("\xef\xbb\xbf\xc3\xa9\n", true, "\xef\xbb\xbf\xc3\xa9\r\n");
	encoded("", true, "");
}

int main(void)
{
	CU_pSuite s;
	unsigned fails;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("emit_tables", NULL, NULL);
	CU_add_test(s, "sh rows cover every Linux kind", test_sh_covers_linux_kinds);
	CU_add_test(s, "ps1 rows cover every Windows kind", test_ps1_covers_windows_kinds);
	CU_add_test(s, "sh and PowerShell quoting", test_quoting);
	CU_add_test(s, "PowerShell name checks", test_ps_names);
	CU_add_test(s, "PowerShell script encoding", test_ps1_encode);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	fails = CU_get_number_of_failures();
	CU_cleanup_registry();
	return fails ? 1 : 0;
}
