/* SPDX-License-Identifier: MIT */
/* CPU list and mask parsing against the kernel's own formats. */
#include <CUnit/Basic.h>
#include <stdlib.h>
#include <string.h>

#include "cpuset.h"

static void test_parse_format(void)
{
	struct nt_cpuset s;
	const char *err = NULL;
	char *out;

	CU_ASSERT_TRUE(nt_cpuset_parse("0-13,28-41", &s, &err));
	CU_ASSERT_EQUAL(nt_cpuset_count(&s), 28);
	CU_ASSERT_TRUE(nt_cpuset_has(&s, 13));
	CU_ASSERT_FALSE(nt_cpuset_has(&s, 14));
	out = nt_cpuset_str(&s);
	CU_ASSERT_STRING_EQUAL(out, "0-13,28-41");
	free(out);
	CU_ASSERT_TRUE(nt_cpuset_parse("0-10:2", &s, &err));
	out = nt_cpuset_str(&s);
	CU_ASSERT_STRING_EQUAL(out, "0,2,4,6,8,10");
	free(out);
}

static void test_parse_errors(void)
{
	struct nt_cpuset s;
	const char *err = NULL;

	CU_ASSERT_FALSE(nt_cpuset_parse("", &s, &err));
	CU_ASSERT_STRING_EQUAL(err, "empty CPU list");
	CU_ASSERT_FALSE(nt_cpuset_parse("5-3", &s, &err));
	CU_ASSERT_STRING_EQUAL(err, "range end is below its start");
	CU_ASSERT_FALSE(nt_cpuset_parse("4096", &s, &err));
	CU_ASSERT_FALSE(nt_cpuset_parse("1;2", &s, &err));
	CU_ASSERT_STRING_EQUAL(err, "expected ',' between CPU ranges");
}

static void test_mask(void)
{
	struct nt_cpuset s;
	struct nt_buf b = {0};
	const char *err;

	/* /sys/class/net/X/queues/rx-0/rps_cpus on a 56-CPU host */
	CU_ASSERT_TRUE(nt_cpuset_parse_mask("00ff,00000003\n", &s));
	CU_ASSERT_TRUE(nt_cpuset_has(&s, 0) && nt_cpuset_has(&s, 1) && nt_cpuset_has(&s, 32));
	CU_ASSERT_EQUAL(nt_cpuset_count(&s), 10);
	nt_cpuset_format_mask(&s, 56, &b);
	CU_ASSERT_STRING_EQUAL(b.p, "000000ff,00000003");
	nt_buf_free(&b);
	CU_ASSERT_TRUE(nt_cpuset_parse("3", &s, &err));
	nt_cpuset_format_mask(&s, 4, &b);
	CU_ASSERT_STRING_EQUAL(b.p, "00000008");
	nt_buf_free(&b);
	CU_ASSERT_FALSE(nt_cpuset_parse_mask("xyz", &s));
}

int main(void)
{
	CU_pSuite s;
	unsigned fails;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("cpuset", NULL, NULL);
	CU_add_test(s, "parse and format cpulists", test_parse_format);
	CU_add_test(s, "cpulist errors", test_parse_errors);
	CU_add_test(s, "hex masks", test_mask);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	fails = CU_get_number_of_failures() + CU_get_number_of_failure_records();
	CU_cleanup_registry();
	return fails ? 1 : 0;
}
