/* SPDX-License-Identifier: MIT */
/* /proc and /sys paths: input-derived components refused, and nothing
 * outside --root read or written through symlinks or "..", with openat2
 * and with the walk used where the kernel lacks it. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../appliers/linux/sysio.h"
#include "nt_test.h"

static char W[] = "/tmp/nt-sysio-XXXXXX";
static char *R;

static int put(const char *rel, const char *s)
{
	char *p = nt_xasprintf("%s/%s", W, rel);
	FILE *f = fopen(p, "w");

	free(p);
	if (!f)
		return 1;
	fputs(s, f);
	return fclose(f) ? 1 : 0;
}

static char *slurp(const char *rel)
{
	char *p = nt_xasprintf("%s/%s", W, rel), buf[256];
	FILE *f = fopen(p, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	free(p);
	buf[n] = '\0';
	return f ? nt_xstrdup(buf) : NULL;
}

static void mk(const char *rel)
{
	char *p = nt_xasprintf("%s/%s", W, rel);

	nt_mkdirs(p);
	free(p);
}

static int ln(const char *target, const char *rel)
{
	char *p = nt_xasprintf("%s/%s", W, rel);
	int r = symlink(target, p) ? 1 : 0;

	free(p);
	return r;
}

static int setup(void)
{
	char *out;
	int bad;

	if (!mkdtemp(W))
		return 1;
	R = nt_xasprintf("%s/root", W);
	nt_sys_root = "";
	mk("root/sys/class/net/eth0/queues/rx-0");
	mk("root/proc/irq");
	mk("root/etc");
	mk("root/sys/devices/pci0/net1");
	bad = put("outside", "secret\n") | put("root/sys/ok", "0\n") |
	      put("root/sys/devices/pci0/net1/mtu", "1500\n");
	/* as sysfs: /sys/class/net/X is a relative link into /sys/devices */
	bad |= ln("../../devices/pci0/net1", "root/sys/class/net/eth1");
	out = nt_xasprintf("%s/outside", W);
	/* absolute: outside R unless resolved in R */
	bad |= ln(out, "root/sys/class/net/eth0/queues/rx-0/rps_cpus");
	free(out);
	bad |= ln("/", "root/proc/irq/5");
	/* relative, climbing above R to W/outside */
	bad |= ln("../../../outside", "root/proc/irq/6");
	bad |= ln("../../..", "root/proc/irq/7");
	bad |= ln("/sys/ok", "root/etc/ok");
	bad |= ln(W, "root/etc/systemd");
	return bad;
}

static int teardown(void)
{
	char *cmd = nt_xasprintf("rm -rf '%s'", W);
	int r = system(cmd);

	free(cmd);
	free(R);
	return r;
}

static void test_components(void)
{
	static const char *const bad[] = {"../../x", "a/b", "", ".", "..", "/", "eth0/../..", "x\n"};
	char longname[300];
	char *p;
	size_t i;

	nt_sys_root = "";
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		p = nt_sys_path("/sys/class/net/%s/mtu", bad[i]);
		CU_ASSERT_PTR_NULL(p);
		CU_ASSERT_EQUAL(errno, EINVAL);
		free(p);
		CU_ASSERT_PTR_NULL(nt_sys_path("/sys/class/net/x/queues/rx-%s/rps_cpus", bad[i]));
	}
	memset(longname, 'a', 256);
	longname[256] = '\0';
	CU_ASSERT_PTR_NULL(nt_sys_path("/proc/%s/comm", longname));
	longname[255] = '\0';
	p = nt_sys_path("/proc/%s/comm", longname);
	CU_ASSERT_PTR_NOT_NULL(p);
	free(p);
	p = nt_sys_path("/sys/class/net/%s/queues/%s-%s/%s", "sysctl", "rx", "0", "rps_cpus");
	CU_ASSERT_STRING_EQUAL(p, "/sys/class/net/sysctl/queues/rx-0/rps_cpus");
	free(p);
	p = nt_sys_path("/proc/irq/%u/smp_affinity_list", 42u);
	CU_ASSERT_STRING_EQUAL(p, "/proc/irq/42/smp_affinity_list");
	free(p);
	p = nt_sys_path_rel("/proc/sys", "net/core/somaxconn", '/');
	CU_ASSERT_STRING_EQUAL(p, "/proc/sys/net/core/somaxconn");
	free(p);
	CU_ASSERT_PTR_NULL(nt_sys_path_rel("/proc/sys", "net/../../etc/shadow", '/'));
	CU_ASSERT_PTR_NULL(nt_sys_path_rel("/proc/sys", "net//core", '/'));
	CU_ASSERT_PTR_NULL(nt_sys_path_rel("/proc/sys", "", '/'));
	CU_ASSERT_PTR_NULL(nt_sys_path_rel("/proc/sys", "net/", '/'));
	/* refused paths are never opened */
	CU_ASSERT_PTR_NULL(nt_sys_read(NULL));
	CU_ASSERT_EQUAL(nt_sys_write(NULL, "1"), -EINVAL);
}

static void confined(bool walk)
{
	char *p, *s, *outside;
	struct nt_dir *d;

	nt_sys_no_openat2 = walk;
	nt_sys_root = R;
	/* R/sys/class/net/eth0/queues/rx-0/rps_cpus -> W/outside */
	p = nt_sys_path("/sys/class/net/%s/queues/rx-%u/rps_cpus", "eth0", 0u);
	CU_ASSERT_PTR_NULL(nt_sys_read(p));
	CU_ASSERT_EQUAL(errno, ENOENT);
	CU_ASSERT_EQUAL(nt_sys_write(p, "ff\n"), -ENOENT);
	CU_ASSERT_NOT_EQUAL(nt_sys_create(p, "ff\n"), 0);
	CU_ASSERT_FALSE(nt_sys_exists(p));
	free(p);
	/* R/proc/irq/5 -> / is R itself */
	p = nt_sys_path("/proc/irq/%u/sys/ok", 5u);
	s = nt_sys_read(p);
	CU_ASSERT_PTR_NOT_NULL(s);
	if (s)
		CU_ASSERT_STRING_EQUAL(s, "0");
	free(s);
	free(p);
	p = nt_sys_path("/proc/irq/%u/outside", 5u);
	CU_ASSERT_PTR_NULL(nt_sys_read(p));
	free(p);
	p = nt_sys_path("/proc/irq/%u", 5u);
	d = nt_sys_opendir(p);
	CU_ASSERT_PTR_NOT_NULL(d);
	if (d)
		nt_sys_closedir(d);
	free(p);
	/* relative links and ".." stop at R */
	p = nt_sys_path("/proc/irq/%u", 6u);
	CU_ASSERT_PTR_NULL(nt_sys_read(p));
	CU_ASSERT_EQUAL(nt_sys_write(p, "1\n"), -ENOENT);
	free(p);
	p = nt_sys_path("/proc/irq/%u/outside", 7u);
	CU_ASSERT_PTR_NULL(nt_sys_read(p));
	free(p);
	p = nt_sys_path("/sys/../../../../outside");
	CU_ASSERT_PTR_NULL(nt_sys_read(p));
	free(p);
	p = nt_sys_path("/sys/class/net/%s/mtu", "eth1");
	s = nt_sys_read(p);
	CU_ASSERT_PTR_NOT_NULL(s);
	if (s)
		CU_ASSERT_STRING_EQUAL(s, "1500");
	free(s);
	CU_ASSERT_EQUAL(nt_sys_write(p, "9000"), 0);
	s = slurp("root/sys/devices/pci0/net1/mtu");
	CU_ASSERT_STRING_EQUAL(s, "9000");
	free(s);
	CU_ASSERT_EQUAL(nt_sys_write(p, "1500\n"), 0);
	free(p);
	/* an absolute link inside R resolves inside R */
	p = nt_sys_path("/etc/ok");
	s = nt_sys_read(p);
	CU_ASSERT_PTR_NOT_NULL(s);
	if (s)
		CU_ASSERT_STRING_EQUAL(s, "0");
	free(s);
	free(p);
	/* creating through R/etc/systemd -> W lands nowhere outside R */
	p = nt_sys_path("/etc/systemd/system");
	nt_mkdirs(p);
	free(p);
	p = nt_sys_path("/etc/systemd/dropin.conf");
	CU_ASSERT_NOT_EQUAL(nt_sys_create(p, "x\n"), 0);
	free(p);
	s = nt_xasprintf("%s/system", W);
	CU_ASSERT_EQUAL(access(s, F_OK), -1);
	free(s);
	s = nt_xasprintf("%s/dropin.conf", W);
	CU_ASSERT_EQUAL(access(s, F_OK), -1);
	free(s);
	/* a file created below R stays there */
	p = nt_sys_path("/etc/nettune/a/b");
	nt_mkdirs(p);
	free(p);
	p = nt_sys_path("/etc/nettune/a/b/c.conf");
	CU_ASSERT_EQUAL(nt_sys_create(p, "c\n"), 0);
	CU_ASSERT_EQUAL(nt_sys_unlink(p), 0);
	CU_ASSERT_FALSE(nt_sys_exists(p));
	free(p);
	/* the link itself can be read, without following it */
	p = nt_sys_path("/etc/ok");
	{
		char buf[64];
		ssize_t n = nt_sys_readlink(p, buf, sizeof(buf) - 1);

		CU_ASSERT_EQUAL(n, 7);
		if (n == 7) {
			buf[n] = '\0';
			CU_ASSERT_STRING_EQUAL(buf, "/sys/ok");
		}
	}
	free(p);
	outside = slurp("outside");
	CU_ASSERT_PTR_NOT_NULL_FATAL(outside);
	CU_ASSERT_STRING_EQUAL(outside, "secret\n");
	free(outside);
	nt_sys_root = "";
	nt_sys_no_openat2 = false;
}

static void test_openat2(void)
{
	confined(false);
}

static void test_walk(void)
{
	confined(true);
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("sysio", setup, teardown);
	CU_add_test(s, "input-derived path components", test_components);
	CU_add_test(s, "symlinks and .. stay below --root (openat2)", test_openat2);
	CU_add_test(s, "symlinks and .. stay below --root (O_NOFOLLOW walk)", test_walk);
	return t_run(s);
}
