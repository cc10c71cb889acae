/* SPDX-License-Identifier: MIT */
/* Per-host RSS keys: HMAC-SHA256(label, host \0 iface \0 counter) blocks. */
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <string.h>

#include "../base/buf.h"
#include "lower.h"

int nt_rss_key_per_host(const char *host, const char *iface, uint8_t *out, size_t n)
{
	static const char label[] = "nettune rss key v1";
	size_t done = 0;
	uint32_t ctr = 0;

	while (done < n) {
		struct nt_buf msg = {0};
		unsigned char md[EVP_MAX_MD_SIZE];
		unsigned int mdlen = 0;
		size_t take;

		nt_buf_putn(&msg, host, strlen(host) + 1);
		nt_buf_putn(&msg, iface, strlen(iface) + 1);
		nt_buf_printf(&msg, "%u", ctr++);
		if (!HMAC(EVP_sha256(), label, (int)strlen(label),
			  (const unsigned char *)msg.p, msg.n, md, &mdlen)) {
			nt_buf_free(&msg);
			return -1;
		}
		nt_buf_free(&msg);
		take = n - done < mdlen ? n - done : mdlen;
		memcpy(out + done, md, take);
		done += take;
	}
	return 0;
}
