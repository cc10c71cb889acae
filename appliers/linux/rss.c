/* SPDX-License-Identifier: MIT */
/* RSS through the ethtool ioctl (works on every kernel nettune supports). */
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../compiler/base/buf.h"
#include "../../compiler/model/settings.h"
#include "ethnl.h"
#include "rss.h"

/* include/uapi/linux/ethtool.h: hash function bits of struct ethtool_rxfh.hfunc */
#define NT_HASH_TOP 1u
#define NT_HASH_XOR 2u
#define NT_HASH_CRC32 4u

int nt_ethtool_ioctl(const char *dev, void *data)
{
	struct ifreq ifr;
	int fd, r = 0;

	if (strlen(dev) >= IFNAMSIZ)
		return -ENAMETOOLONG;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, dev);
	ifr.ifr_data = data;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
		r = -errno;
	close(fd);
	return r;
}

int nt_rss_get(const char *dev, struct nt_rss_state *out)
{
	struct ethtool_rxfh hdr = {.cmd = ETHTOOL_GRSSH};
	struct ethtool_rxfh *full;
	size_t sz;
	int r;

	memset(out, 0, sizeof(*out));
	nt_io_count(NT_IO_RSS_GET);
	r = nt_ethtool_ioctl(dev, &hdr);
	if (r)
		return r;
	/* the same bounds as snapshots and plans: sizes nettune can hold */
	if (hdr.key_size > NT_RSS_KEY_MAX || hdr.indir_size > NT_RSS_INDIR_MAX)
		return -EOVERFLOW;
	sz = sizeof(*full) + hdr.indir_size * sizeof(uint32_t) + hdr.key_size;
	full = nt_xcalloc(1, sz);
	full->cmd = ETHTOOL_GRSSH;
	full->indir_size = hdr.indir_size;
	full->key_size = hdr.key_size;
	r = nt_ethtool_ioctl(dev, full);
	if (!r) {
		out->hfunc = full->hfunc;
		out->indir_size = full->indir_size;
		out->key_size = full->key_size;
		out->indir = nt_xmalloc(out->indir_size * sizeof(uint32_t) + 1);
		memcpy(out->indir, full->rss_config, out->indir_size * sizeof(uint32_t));
		out->key = nt_xmalloc(out->key_size + 1);
		memcpy(out->key, (uint8_t *)full->rss_config + out->indir_size * sizeof(uint32_t),
		       out->key_size);
	}
	free(full);
	return r;
}

int nt_rss_set(const char *dev, uint32_t hfunc, const uint8_t *key, size_t key_size,
	       const uint32_t *indir, size_t indir_size)
{
	struct ethtool_rxfh *x;
	size_t sz;
	int r;

	if ((key && key_size > NT_RSS_KEY_MAX) || (indir && indir_size > NT_RSS_INDIR_MAX))
		return -EINVAL;
	sz = sizeof(struct ethtool_rxfh) + (indir ? indir_size * sizeof(uint32_t) : 0) +
	     (key ? key_size : 0);
	x = nt_xcalloc(1, sz);

	x->cmd = ETHTOOL_SRSSH;
	x->hfunc = hfunc;
	/* ETH_RXFH_INDIR_NO_CHANGE keeps the table */
	x->indir_size = indir ? (uint32_t)indir_size : ETH_RXFH_INDIR_NO_CHANGE;
	x->key_size = key ? (uint32_t)key_size : 0;
	if (indir)
		memcpy(x->rss_config, indir, indir_size * sizeof(uint32_t));
	if (key)
		memcpy((uint8_t *)x->rss_config + (indir ? indir_size * sizeof(uint32_t) : 0), key,
		       key_size);
	nt_io_count(NT_IO_RSS_SET);
	r = nt_ethtool_ioctl(dev, x);
	free(x);
	return r;
}

void nt_rss_free(struct nt_rss_state *s)
{
	free(s->key);
	free(s->indir);
	memset(s, 0, sizeof(*s));
}

const char *nt_rss_hfunc_name(uint32_t h)
{
	if (h & NT_HASH_TOP)
		return "toeplitz";
	if (h & NT_HASH_XOR)
		return "xor";
	if (h & NT_HASH_CRC32)
		return "crc32";
	return "unknown";
}

uint32_t nt_rss_hfunc_bit(const char *name)
{
	if (!strcmp(name, "toeplitz"))
		return NT_HASH_TOP;
	if (!strcmp(name, "xor"))
		return NT_HASH_XOR;
	if (!strcmp(name, "crc32"))
		return NT_HASH_CRC32;
	return 0;
}
