/* SPDX-License-Identifier: MIT */
/* The record codec: the three written forms byte for byte, and the shared reader parts. */
#include <CUnit/Basic.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "validate.h"

static struct nt_record ring(const struct nt_value *from, const struct nt_value *to)
{
	struct nt_record r = {"eth0", NT_K_RING, "rx", from, to,
			      NT_SF_DISRUPTIVE | NT_SF_IMPLIED, {NULL, 3, 7}, NULL};

	r.src.file = nt_intern("p.yaml");
	return r;
}

static void check_form(const struct nt_record *r, enum nt_record_form f, const char *want)
{
	struct nt_buf b = {0};

	nt_record_write(r, f, &b);
	CU_ASSERT_STRING_EQUAL(b.p, want);
	nt_buf_free(&b);
}

static void test_forms(void)
{
	struct nt_value from = nt_v_u32(512), to = nt_v_u32(4096);
	struct nt_record r = ring(&from, &to);

	check_form(&r, NT_REC_PLAN,
		   "{\"object\":\"eth0\",\"attribute\":\"ring rx\",\"from\":512,\"to\":4096,"
		   "\"disruptive\":true,\"cannot_change\":false,\"observed\":true,\"implied\":true,"
		   "\"source\":\"p.yaml:3:7\"}");
	check_form(&r, NT_REC_MANIFEST,
		   "{\"object\": \"eth0\", \"attribute\": \"ring rx\", \"from\": 512, \"to\": 4096, "
		   "\"flags\": [\"implied\", \"disruptive\"], \"source\": \"p.yaml:3:7\", "
		   "\"note\": null}");
	check_form(&r, NT_REC_JOURNAL,
		   "{\"object\": \"eth0\", \"attribute\": \"ring rx\", \"before\": 512, "
		   "\"after\": 4096}");
	/* not observed, no source, a note; an argument-less kind */
	r.from = NULL;
	r.flags = NT_SF_NOT_OBSERVED;
	r.src.file = NULL;
	r.note = "a \"quoted\" note";
	check_form(&r, NT_REC_PLAN,
		   "{\"object\":\"eth0\",\"attribute\":\"ring rx\",\"from\":null,\"to\":4096,"
		   "\"disruptive\":false,\"cannot_change\":false,\"observed\":false,"
		   "\"implied\":false,\"source\":null,\"note\":\"a \\\"quoted\\\" note\"}");
	r.kind = NT_K_MTU;
	r.arg = NULL;
	check_form(&r, NT_REC_MANIFEST,
		   "{\"object\": \"eth0\", \"attribute\": \"mtu\", \"from\": null, \"to\": 4096, "
		   "\"flags\": [\"not-observed\"], \"source\": null, "
		   "\"note\": \"a \\\"quoted\\\" note\"}");
}

static void test_flags_source(void)
{
	struct nt_mark m = {0};

	CU_ASSERT_EQUAL(nt_record_flag("implied"), NT_SF_IMPLIED);
	CU_ASSERT_EQUAL(nt_record_flag("cannot-change"), NT_SF_CANNOT_CHANGE);
	CU_ASSERT_EQUAL(nt_record_flag("reset"), NT_SF_RESET);
	CU_ASSERT_EQUAL(nt_record_flag("cannot_change"), 0);
	CU_ASSERT_TRUE(nt_record_source_parse("dir/a:b.yaml:12:5", &m));
	CU_ASSERT_STRING_EQUAL(m.file, "dir/a:b.yaml");
	CU_ASSERT_EQUAL(m.line, 12);
	CU_ASSERT_EQUAL(m.col, 5);
	CU_ASSERT_FALSE(nt_record_source_parse("a.yaml:12", &m));
	CU_ASSERT_FALSE(nt_record_source_parse("a.yaml:0:5", &m));
	CU_ASSERT_FALSE(nt_record_source_parse(":1:1", &m));
	CU_ASSERT_FALSE(nt_record_source_parse("a.yaml:1:10000001", &m));
}

/* What the reader reported, one line per problem. */
struct seen {
	struct nt_buf b;
};

static void collect(void *ctx, const struct nt_json *at, enum nt_record_problem p, const char *a,
		    const char *b)
{
	struct seen *s = ctx;

	nt_buf_printf(&s->b, "%u:%u %d %s %s\n", at->mark.line, at->mark.col, (int)p, a,
		      b ? b : "-");
}

static const struct nt_json *parse(const char *text, struct nt_diags *d)
{
	return nt_json_parse("r.json", text, strlen(text), d);
}

static void test_read(void)
{
	struct seen s = {{0}};
	struct nt_record_reader rd = {collect, &s, nt_setting_problem};
	struct nt_diags d = {0};
	const struct nt_json *j;
	struct nt_value v;
	enum nt_kind_id k;
	char *arg = NULL;
	bool has = true;

	/* what the writer wrote reads back */
	j = parse("{\"object\": \"eth0\", \"attribute\": \"ring rx\", \"from\": null, \"to\": 4096}", &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	CU_ASSERT_EQUAL(nt_record_read_attr(&rd, j, "eth0", "ring rx", &k, &arg), 0);
	CU_ASSERT_EQUAL(k, NT_K_RING);
	CU_ASSERT_STRING_EQUAL(arg, "rx");
	free(arg);
	CU_ASSERT_TRUE(nt_record_read_value(&rd, nt_json_get(j, "from"), "from", k, true, &v, &has));
	CU_ASSERT_FALSE(has);
	CU_ASSERT_TRUE(nt_record_read_value(&rd, nt_json_get(j, "to"), "to", k, false, &v, &has));
	CU_ASSERT_TRUE(has);
	CU_ASSERT_EQUAL(v.u, 4096);
	CU_ASSERT_PTR_NULL(s.b.p);
	/* a null that must not be, a value of the wrong type */
	CU_ASSERT_FALSE(nt_record_read_value(&rd, nt_json_get(j, "from"), "to", k, false, &v, &has));
	nt_json_free((struct nt_json *)j);
	j = parse("{\"object\": \"../x\", \"attribute\": \"ringx rx\",\n \"to\": \"many\"}", &d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	CU_ASSERT_FALSE(nt_record_read_value(&rd, nt_json_get(j, "to"), "to", k, false, &v, &has));
	/* an unknown attribute; an object that is not a safe path component */
	CU_ASSERT_EQUAL(nt_record_read_attr(&rd, j, "../x", "ringx rx", &k, &arg), -1);
	CU_ASSERT_EQUAL(nt_record_read_attr(&rd, j, "../x", "ring rx", &k, &arg), 1);
	free(arg);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s.b.p);
	CU_ASSERT_STRING_EQUAL(s.b.p,
		"1:52 2 to must be a whole number 0..4294967295\n"
		"2:8 3 to must be a whole number 0..4294967295\n"
		"1:33 0 ringx rx -\n"
		"1:12 1 object contains '/'\n");
	nt_json_free((struct nt_json *)j);
	nt_buf_free(&s.b);
	nt_diags_free(&d);
}

int main(void)
{
	CU_pSuite s;
	unsigned fails;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("record", NULL, NULL);
	CU_add_test(s, "plan, manifest and journal forms, byte for byte", test_forms);
	CU_add_test(s, "flag names and FILE:LINE:COL sources", test_flags_source);
	CU_add_test(s, "reader parts: attribute, values, problems", test_read);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	fails = CU_get_number_of_failures() + CU_get_number_of_failure_records();
	CU_cleanup_registry();
	nt_intern_free();
	return fails ? 1 : 0;
}
