/* SPDX-License-Identifier: MIT */
/* RSS hash function, key and indirection table over SIOCETHTOOL
 * ETHTOOL_GRSSH / ETHTOOL_SRSSH (struct ethtool_rxfh). */
#ifndef NT_RSS_H
#define NT_RSS_H

#include <stddef.h>
#include <stdint.h>

struct nt_rss_state {
	uint32_t hfunc;			/* ETH_RSS_HASH_TOP=1, XOR=2, CRC32=4 */
	uint8_t *key;
	size_t key_size;
	uint32_t *indir;
	size_t indir_size;
};

int nt_rss_get(const char *dev, struct nt_rss_state *out);
/* Any of hfunc (0 = keep), key (NULL = keep), indir (NULL = keep). */
int nt_rss_set(const char *dev, uint32_t hfunc, const uint8_t *key, size_t key_size,
	       const uint32_t *indir, size_t indir_size);
void nt_rss_free(struct nt_rss_state *s);
const char *nt_rss_hfunc_name(uint32_t h);
uint32_t nt_rss_hfunc_bit(const char *name);

/* SIOCETHTOOL on dev with data (a struct ethtool_* whose .cmd is set):
 * 0 or -errno. */
int nt_ethtool_ioctl(const char *dev, void *data);

#endif
