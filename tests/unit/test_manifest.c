/* SPDX-License-Identifier: MIT */
/* Plan manifests: canonical writer/loader round trip, byte-identical
 * re-serialisation, exact located rejections, times and durations, and
 * Ed25519 sign/verify over OpenSSL. */
#include <unistd.h>

#include "manifest.h"
#include "nt_test.h"
#include "sign.h"

static const char profile[] =
	"apiVersion: nettune/v1\n"
	"kind: HostProfile\n"
	"metadata: {name: unit-host}\n"
	"target: linux\n"
	"interfaces:\n"
	"  - {name: eth0, nic: veth, mtu: 9000, offloads: {gro: on, tso: off}}\n"
	"sysctl:\n"
	"  net.core.rps_sock_flow_entries: \"32768\"\n";

/* A manifest of the profile above against hand-made observed values. */
static void build(struct nt_manifest *m)
{
	struct nt_loaded l;
	struct nt_facts f;
	struct nt_state obs = {0}, des = {0};
	struct nt_diags d = {0};
	struct nt_plan p;
	struct nt_manifest_opts o = {1893456000, 3600, false};
	struct nt_mark none = {0};
	struct nt_iface_facts *i;
	char path[] = "/tmp/nt-unit-profile-XXXXXX";
	int fd = mkstemp(path);

	t_load("unit.yaml", profile, &l);
	nt_facts_init(&f);
	f.known = true;
	f.hostname = nt_xstrdup("unit-host");
	f.machine_id = nt_xstrdup("0123456789abcdef0123456789abcdef\n");
	i = nt_facts_add_iface(&f, "eth0");
	i->kind = nt_xstrdup("veth");
	i->numa_node = -1;
	nt_state_set(&obs, NT_K_MTU, "eth0", NULL, nt_v_u32(1500), none);
	nt_state_set(&obs, NT_K_FEATURE, "eth0", "rx-gro", nt_v_bool(false), none);
	CU_ASSERT_EQUAL(t_lower(&l, &f, &obs, &des, &d, NULL), 0);
	t_plan(&l, &f, &obs, &des, &p);
	/* the loader read the profile from memory: digest a real file instead */
	CU_ASSERT_FATAL(fd >= 0 && write(fd, profile, sizeof(profile) - 1) == sizeof(profile) - 1);
	close(fd);
	l.sources[0] = nt_intern(path);
	CU_ASSERT_EQUAL_FATAL(nt_manifest_build(m, &l, &f, &p, "unit-state.json", &o, &d), 0);
	free(m->sources[0].file);
	m->sources[0].file = nt_xstrdup("unit.yaml");
	unlink(path);
	nt_plan_free(&p);
	nt_state_free(&obs);
	nt_state_free(&des);
	nt_facts_free(&f);
	nt_loaded_free(&l);
	nt_diags_free(&d);
}

static void test_round_trip(void)
{
	struct nt_manifest m, back;
	struct nt_buf a = {0}, b = {0};
	struct nt_diags d = {0};
	size_t i;

	build(&m);
	CU_ASSERT_STRING_EQUAL(m.machine_id, "0123456789abcdef0123456789abcdef");
	CU_ASSERT_TRUE(m.plan.n >= 3);
	nt_manifest_write(&m, &a);
	CU_ASSERT_PTR_NOT_NULL(strstr(a.p, "\"created\": \"2030-01-01T00:00:00Z\",\n"
					  "  \"expires\": \"2030-01-01T01:00:00Z\""));
	CU_ASSERT_EQUAL_FATAL(nt_manifest_load_data("m.json", a.p, a.n, &back, &d), 0);
	CU_ASSERT_EQUAL(d.n, 0);
	nt_manifest_write(&back, &b);
	CU_ASSERT_EQUAL_FATAL(a.n, b.n);
	CU_ASSERT_EQUAL(memcmp(a.p, b.p, a.n), 0);
	CU_ASSERT_EQUAL(back.plan.n, m.plan.n);
	for (i = 0; i < m.plan.n; i++) {
		CU_ASSERT_EQUAL(back.plan.v[i].kind, m.plan.v[i].kind);
		CU_ASSERT_STRING_EQUAL(back.plan.v[i].object, m.plan.v[i].object);
		CU_ASSERT_EQUAL(back.plan.v[i].has_from, m.plan.v[i].has_from);
		CU_ASSERT_TRUE(nt_value_equal(&back.plan.v[i].to, &m.plan.v[i].to));
		CU_ASSERT_EQUAL(back.plan.v[i].flags, m.plan.v[i].flags);
	}
	CU_ASSERT_EQUAL(back.created, 1893456000);
	CU_ASSERT_STRING_EQUAL(back.host_name, "unit-host");
	CU_ASSERT_STRING_EQUAL(back.sources[0].sha256, m.sources[0].sha256);
	nt_manifest_free(&back);
	nt_manifest_free(&m);
	nt_buf_free(&a);
	nt_buf_free(&b);
	nt_diags_free(&d);
}

/* Replaces the first `from` in the canonical text and expects exactly msg. */
static void reject(const char *from, const char *to, const char *msg)
{
	struct nt_manifest m, back;
	struct nt_buf a = {0}, e = {0};
	struct nt_diags d = {0};
	char *hit, *got;

	build(&m);
	nt_manifest_write(&m, &a);
	hit = strstr(a.p, from);
	CU_ASSERT_PTR_NOT_NULL_FATAL(hit);
	nt_buf_putn(&e, a.p, (size_t)(hit - a.p));
	nt_buf_puts(&e, to);
	nt_buf_puts(&e, hit + strlen(from));
	CU_ASSERT_EQUAL(nt_manifest_load_data("m.json", e.p, e.n, &back, &d), -1);
	CU_ASSERT_PTR_NULL(back.plan.v);
	got = t_first_error(&d);
	if (strcmp(got, msg))
		fprintf(stderr, "\n  want: %s\n  got:  %s\n", msg, got);
	CU_ASSERT_STRING_EQUAL(got, msg);
	free(got);
	nt_manifest_free(&m);
	nt_buf_free(&a);
	nt_buf_free(&e);
	nt_diags_free(&d);
}

static void test_rejections(void)
{
	reject("\"nettune-plan/1\"", "\"nettune-plan/2\"",
	       "m.json:2:13: format \"nettune-plan/2\" is not nettune-plan/1 (not a nettune plan, or "
	       "from a newer nettune)");
	reject("\"target\": \"linux\"", "\"target\": 7", "m.json:4:13: \"target\" must be a string, not a number");
	reject("\"target\": \"linux\"", "\"target\":\"linux\"", "m.json:4:12: not in canonical form: "
	       "byte 65 differs from nettune's own serialisation of this plan (edited after it was written?)");
	reject("\"signer\": null", "\"signer\": \"sha256:beef\"",
	       "m.json:13:13: \"signer\" must be a key id \"sha256:\" + 64 hex digits");
	reject("\"mtu\", \"from\": 1500", "\"mtu\", \"from\": -1",
	       "m.json:17:52: \"from\" of mtu must be a whole number 0..4294967295");
	reject("\"flags\": [", "\"flags\": [\"x\", ",
	       "m.json:16:119: unknown flag (implied, cannot-change, disruptive, not-observed, reset)");
	reject("\"expires\": \"2030-01-01T01", "\"expires\": \"2029-01-01T01",
	       "m.json:12:14: \"expires\" must be later than \"created\"");
	reject("{\n", "{\"a\": 1,\n", "m.json:1:7: unknown key \"a\" in the manifest");
	/* objects and arguments that would leave /sys/class/net or /proc/sys */
	reject("\"object\": \"eth0\", \"attribute\": \"mtu\"",
	       "\"object\": \"../../../x\", \"attribute\": \"mtu\"",
	       "m.json:17:16: object \"../../../x\" of mtu contains '/'");
	reject("\"object\": \"eth0\", \"attribute\": \"mtu\"",
	       "\"object\": \"a/b\", \"attribute\": \"mtu\"",
	       "m.json:17:16: object \"a/b\" of mtu contains '/'");
	reject("\"object\": \"eth0\", \"attribute\": \"mtu\"",
	       "\"object\": \"..\", \"attribute\": \"mtu\"",
	       "m.json:17:16: object \"..\" of mtu is '.' or '..'");
	reject("\"object\": \"eth0\", \"attribute\": \"mtu\"",
	       "\"object\": \"abcdefghijklmnop\", \"attribute\": \"mtu\"",
	       "m.json:17:16: object \"abcdefghijklmnop\" of mtu is longer than 15 bytes (IFNAMSIZ 16 "
	       "with the NUL)");
	reject("\"object\": \"eth0\", \"attribute\": \"mtu\"", "\"object\": \"\", \"attribute\": \"mtu\"",
	       "m.json:17:16: \"object\" must be a non-empty printable string of at most 4096 bytes");
	reject("\"object\": \"sysctl\", \"attribute\": \"sysctl net.core.rps_sock_flow_entries\"",
	       "\"object\": \"sysctl\", \"attribute\": \"sysctl net/../../../../etc/x\"",
	       "m.json:16:39: argument \"net/../../../../etc/x\" of sysctl net/../../../../etc/x has an "
	       "empty component ('..', '//', or a leading or trailing separator)");
	reject("\"object\": \"sysctl\", \"attribute\": \"sysctl net.core.rps_sock_flow_entries\"",
	       "\"object\": \"eth0\", \"attribute\": \"sysctl net.core.rps_sock_flow_entries\"",
	       "m.json:16:16: object \"eth0\" of sysctl net.core.rps_sock_flow_entries must be "
	       "\"sysctl\" for a sysctl setting");
}

static void test_times(void)
{
	int64_t t;
	char s[32];
	const char *why;

	CU_ASSERT_TRUE(nt_time_parse("2030-01-01T00:00:00Z", &t));
	CU_ASSERT_EQUAL(t, 1893456000);
	nt_time_format(t, s);
	CU_ASSERT_STRING_EQUAL(s, "2030-01-01T00:00:00Z");
	CU_ASSERT_FALSE(nt_time_parse("2030-02-30T00:00:00Z", &t));
	CU_ASSERT_FALSE(nt_time_parse("2030-01-01 00:00:00Z", &t));
	CU_ASSERT_FALSE(nt_time_parse("2030-01-01T00:00:00+01:00", &t));
	CU_ASSERT_TRUE(nt_duration_parse("24h", &t) && t == 86400);
	CU_ASSERT_TRUE(nt_duration_parse("90m", &t) && t == 5400);
	CU_ASSERT_TRUE(nt_duration_parse("7d", &t) && t == 604800);
	CU_ASSERT_TRUE(nt_duration_parse("30", &t) && t == 30);
	CU_ASSERT_FALSE(nt_duration_parse("0h", &t));
	CU_ASSERT_FALSE(nt_duration_parse("401d", &t));
	CU_ASSERT_FALSE(nt_duration_parse("5w", &t));
	CU_ASSERT_TRUE(nt_created_time("@1893456000", &t, &why) && t == 1893456000);
	CU_ASSERT_FALSE(nt_created_time("soon", &t, &why));
}

static void test_sign_verify(void)
{
	char dir[] = "/tmp/nt-unit-XXXXXX", err[512];
	char *key, *pub;
	struct nt_key k, p;
	unsigned char sig[NT_SIG_BYTES];
	static const char msg[] = "{\"format\": \"nettune-plan/1\"}\n";

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	key = nt_xasprintf("%s/k", dir);
	pub = nt_xasprintf("%s/k.pub", dir);
	CU_ASSERT_EQUAL_FATAL(nt_key_generate(key, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(nt_key_generate(key, err, sizeof(err)), -1);
	CU_ASSERT_EQUAL_FATAL(nt_key_load_private(key, &k, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(nt_key_load_public(pub, &p, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(k.id, p.id);
	CU_ASSERT_EQUAL(strncmp(k.id, "sha256:", 7), 0);
	CU_ASSERT_EQUAL(nt_sign(&k, msg, sizeof(msg) - 1, sig), 0);
	CU_ASSERT_TRUE(nt_verify(&p, msg, sizeof(msg) - 1, sig, sizeof(sig)));
	CU_ASSERT_FALSE(nt_verify(&p, msg, sizeof(msg) - 2, sig, sizeof(sig)));
	CU_ASSERT_FALSE(nt_verify(&p, msg, sizeof(msg) - 1, sig, sizeof(sig) - 1));
	sig[10] ^= 1;
	CU_ASSERT_FALSE(nt_verify(&p, msg, sizeof(msg) - 1, sig, sizeof(sig)));
	nt_key_free(&k);
	nt_key_free(&p);
	CU_ASSERT_EQUAL(nt_key_load_public(key, &p, err, sizeof(err)), -1);	/* a private key */
	unlink(key);
	unlink(pub);
	rmdir(dir);
	free(key);
	free(pub);
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("manifest", NULL, NULL);
	CU_add_test(s, "canonical round trip, byte-identical", test_round_trip);
	CU_add_test(s, "untrusted manifests: exact located rejections", test_rejections);
	CU_add_test(s, "times and durations", test_times);
	CU_add_test(s, "Ed25519 keys, sign, verify", test_sign_verify);
	return t_run(s);
}
