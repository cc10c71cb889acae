/* SPDX-License-Identifier: MIT */
/* Helpers of the Linux kind rows (the rows are in kinds.c, or beside their
 * wire family in fam_*.c, with their functions). */
#include <errno.h>
#include <string.h>

#include "linux.h"
#include "rows.h"

int nt_row_absent(int r)
{
	return r == -EOPNOTSUPP || r == -ENODEV || r == -EINVAL ? -ENOENT : r;
}

int nt_row_nl_err(struct nt_lctx *x, int r)
{
	nt_ethnl_reason(x->nl, r, x->err, sizeof(x->err));
	return r;
}

const struct nt_linux_row *nt_linux_row(enum nt_kind_id k)
{
	if ((unsigned)k >= NT_K__COUNT || !nt_linux_rows[k]->sh_fn)
		return NULL;
	return nt_linux_rows[k];
}

void nt_linux_row_sh(const struct nt_linux_row *r, const char *body, struct nt_buf *o)
{
	const char *p = body, *at;

	while ((at = strstr(p, "@PATH@"))) {
		const char *t = r->path;
		int n = 0;

		nt_buf_putn(o, p, (size_t)(at - p));
		for (; t && *t; t++) {
			if (t[0] == '%' && t[1] == 's') {
				const char *a = r->sh_path_args[n] ? r->sh_path_args[n] :
						n ? "$2" : "$1";

				nt_buf_puts(o, a);
				n++;
				t++;
			} else {
				nt_buf_putc(o, *t);
			}
		}
		p = at + 6;
	}
	nt_buf_puts(o, p);
}
