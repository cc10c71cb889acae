/* SPDX-License-Identifier: MIT */
/* Growable buffers and allocation helpers that abort on exhaustion. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"

void *nt_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fputs("nettune: out of memory\n", stderr);
		fflush(stderr);	/* it may be fully buffered */
		abort();
	}
	return p;
}

void *nt_xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);

	if (!p) {
		fputs("nettune: out of memory\n", stderr);
		fflush(stderr);	/* it may be fully buffered */
		abort();
	}
	return p;
}

void *nt_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fputs("nettune: out of memory\n", stderr);
		fflush(stderr);	/* it may be fully buffered */
		abort();
	}
	return p;
}

char *nt_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(nt_xmalloc(n), s, n);
}

struct nt_strblock {
	struct nt_strblock *next;
	size_t used, size;
	char s[];
};

char *nt_strpool_dup(struct nt_strpool *p, const char *s)
{
	size_t n = strlen(s) + 1;
	struct nt_strblock *b = p->head;
	char *r;

	if (!b || b->size - b->used < n) {
		size_t size = n > 4000 ? n : 4000;

		b = nt_xmalloc(sizeof(*b) + size);
		b->next = p->head;
		b->used = 0;
		b->size = size;
		p->head = b;
	}
	r = memcpy(b->s + b->used, s, n);
	b->used += n;
	return r;
}

void nt_strpool_free(struct nt_strpool *p)
{
	while (p->head) {
		struct nt_strblock *b = p->head;

		p->head = b->next;
		free(b);
	}
}

char *nt_xasprintf(const char *fmt, ...)
{
	struct nt_buf b = {0};
	va_list ap;

	va_start(ap, fmt);
	nt_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	return nt_buf_take(&b);
}

void nt_buf_grow(struct nt_buf *b, size_t extra)
{
	size_t want = b->n + extra + 1;

	if (want <= b->cap)
		return;
	if (b->cap < 64)
		b->cap = 64;
	while (b->cap < want)
		b->cap *= 2;
	b->p = nt_xrealloc(b->p, b->cap);
}

void nt_buf_putn(struct nt_buf *b, const char *s, size_t n)
{
	nt_buf_grow(b, n);
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

void nt_buf_puts(struct nt_buf *b, const char *s)
{
	nt_buf_putn(b, s, strlen(s));
}

void nt_buf_putc(struct nt_buf *b, char c)
{
	if (b->n + 1 < b->cap) {
		b->p[b->n++] = c;
		b->p[b->n] = '\0';
		return;
	}
	nt_buf_putn(b, &c, 1);
}

void nt_buf_vprintf(struct nt_buf *b, const char *fmt, va_list ap)
{
	va_list aq;
	int len;

	/* format into the spare room first: one vsnprintf in the usual case */
	nt_buf_grow(b, 63);
	va_copy(aq, ap);
	len = vsnprintf(b->p + b->n, b->cap - b->n, fmt, aq);
	va_end(aq);
	if (len < 0) {
		b->p[b->n] = '\0';
		return;
	}
	if ((size_t)len >= b->cap - b->n) {
		nt_buf_grow(b, (size_t)len);
		vsnprintf(b->p + b->n, (size_t)len + 1, fmt, ap);
	}
	b->n += (size_t)len;
}

void nt_buf_printf(struct nt_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	nt_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

size_t nt_utf8_len(const char *str, size_t avail)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n, i;
	uint32_t cp;

	if (!avail)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n > avail)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* Code points that move the cursor or reorder text although they are valid
 * UTF-8: the C1 controls (U+0080..U+009F; some terminals read U+009B as
 * CSI), the line and paragraph separators and the bidirectional
 * embeddings, overrides and isolates (text that displays other than it
 * reads). */
static bool unsafe_cp(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/* The code point of the n-byte valid UTF-8 sequence at p. */
static uint32_t utf8_cp(const unsigned char *p, size_t n)
{
	static const unsigned char lead[] = {0, 0x7f, 0x1f, 0x0f, 0x07};
	uint32_t cp = p[0] & lead[n];
	size_t i;

	for (i = 1; i < n; i++)
		cp = (cp << 6) | (p[i] & 0x3f);
	return cp;
}

/* Printable ASCII that needs no escape in a JSON string. */
static bool json_plain(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
}

void nt_buf_json_body(struct nt_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		const unsigned char *st = p;
		size_t n;

		/* runs of plain characters are copied at once */
		while (json_plain(*p))
			p++;
		if (p != st)
			nt_buf_putn(b, (const char *)st, (size_t)(p - st));
		if (!*p)
			break;
		switch (*p) {
		case '"': nt_buf_puts(b, "\\\""); p++; continue;
		case '\\': nt_buf_puts(b, "\\\\"); p++; continue;
		case '\n': nt_buf_puts(b, "\\n"); p++; continue;
		case '\r': nt_buf_puts(b, "\\r"); p++; continue;
		case '\t': nt_buf_puts(b, "\\t"); p++; continue;
		default: break;
		}
		if (*p < 0x20 || *p == 0x7f) {
			nt_buf_printf(b, "\\u%04x", *p);
			p++;
			continue;
		}
		n = nt_utf8_len((const char *)p, 4);
		if (!n) {
			nt_buf_puts(b, "\\ufffd");
			p++;
			continue;
		}
		if (n > 1 && unsafe_cp(utf8_cp(p, n)))
			nt_buf_printf(b, "\\u%04x", (unsigned)utf8_cp(p, n));
		else
			nt_buf_putn(b, (const char *)p, n);
		p += n;
	}
}

void nt_buf_put_escaped(struct nt_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		const unsigned char *st = p;
		size_t n;

		while (*p >= 0x20 && *p < 0x7f)
			p++;
		if (p != st)
			nt_buf_putn(b, (const char *)st, (size_t)(p - st));
		if (!*p)
			break;
		switch (*p) {
		case '\n': nt_buf_puts(b, "\\n"); p++; continue;
		case '\r': nt_buf_puts(b, "\\r"); p++; continue;
		case '\t': nt_buf_puts(b, "\\t"); p++; continue;
		default: break;
		}
		n = *p < 0x80 ? 0 : nt_utf8_len((const char *)p, 4);
		if (!n) {
			/* C0, DEL, or a byte that is not part of valid UTF-8 */
			nt_buf_printf(b, "\\x%02x", *p++);
			continue;
		}
		if (unsafe_cp(utf8_cp(p, n)))
			nt_buf_printf(b, "\\u%04x", (unsigned)utf8_cp(p, n));
		else
			nt_buf_putn(b, (const char *)p, n);
		p += n;
	}
}

const char *nt_esc(const char *s)
{
	static struct nt_buf slot[8];
	static unsigned next;
	struct nt_buf *b = &slot[next++ % NT_ARRAY_SIZE(slot)];

	b->n = 0;
	if (b->p)
		b->p[0] = '\0';
	nt_buf_put_escaped(b, s ? s : "(null)");
	return b->p ? b->p : "";
}

void nt_buf_json_str(struct nt_buf *b, const char *s)
{
	nt_buf_putc(b, '"');
	nt_buf_json_body(b, s);
	nt_buf_putc(b, '"');
}

void nt_buf_put_u64(struct nt_buf *b, uint64_t v)
{
	char t[24];
	size_t i = sizeof(t);

	do {
		t[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	nt_buf_putn(b, t + i, sizeof(t) - i);
}

void nt_buf_free(struct nt_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->n = b->cap = 0;
}

char *nt_buf_take(struct nt_buf *b)
{
	char *p = b->p ? b->p : nt_xstrdup("");

	b->p = NULL;
	b->n = b->cap = 0;
	return p;
}

int nt_buf_write(const struct nt_buf *b, FILE *f)
{
	if (b->n && fwrite(b->p, 1, b->n, f) != b->n)
		return -1;
	return 0;
}

const char *nt_file_type(unsigned mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return "regular file";
	case S_IFDIR: return "directory";
	case S_IFIFO: return "fifo";
	case S_IFSOCK: return "socket";
	case S_IFCHR: return "character device";
	case S_IFBLK: return "block device";
	case S_IFLNK: return "symbolic link";
	default: return "unknown file type";
	}
}

int nt_open_input_at(int dirfd, const char *path, unsigned flags, struct stat *st,
		     char *why, size_t whylen)
{
	int oflags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;
	struct stat tmp, lst;
	int fd, e;

	if (!st)
		st = &tmp;
	if (flags & NT_IN_NOFOLLOW)
		oflags |= O_NOFOLLOW;
	fd = openat(dirfd, path, oflags);
	if (fd < 0) {
		e = errno;
		if (e == ELOOP && (flags & NT_IN_NOFOLLOW) &&
		    !fstatat(dirfd, path, &lst, AT_SYMLINK_NOFOLLOW) && S_ISLNK(lst.st_mode))
			snprintf(why, whylen, "is a symbolic link (not followed)");
		else
			snprintf(why, whylen, "cannot open: %s", strerror(e));
		return -e;
	}
	if (fstat(fd, st)) {
		e = errno;
		snprintf(why, whylen, "cannot open: %s", strerror(e));
		close(fd);
		return -e;
	}
	if (!S_ISREG(st->st_mode)) {
		snprintf(why, whylen, "not a regular file (%s)", nt_file_type(st->st_mode));
		close(fd);
		return S_ISDIR(st->st_mode) ? -EISDIR : -EINVAL;
	}
	return fd;
}

int nt_open_input(const char *path, unsigned flags, struct stat *st, char *why, size_t whylen)
{
	return nt_open_input_at(AT_FDCWD, path, flags, st, why, whylen);
}

int nt_read_fd(int fd, size_t max, struct nt_buf *out, char *why, size_t whylen)
{
	char chunk[65536];
	ssize_t got;

	memset(out, 0, sizeof(*out));
	for (;;) {
		got = read(fd, chunk, sizeof(chunk));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		if (out->n + (size_t)got > max) {
			snprintf(why, whylen, "larger than %zu bytes", max);
			nt_buf_free(out);
			return -EFBIG;
		}
		nt_buf_putn(out, chunk, (size_t)got);
	}
	if (got < 0) {
		int e = errno;

		snprintf(why, whylen, "cannot read: %s", strerror(e));
		nt_buf_free(out);
		return -e;
	}
	nt_buf_grow(out, 0);	/* NUL-terminated even when empty */
	out->p[out->n] = '\0';
	return 0;
}

int nt_read_input(const char *path, size_t max, unsigned flags, struct nt_buf *out,
		  char *why, size_t whylen)
{
	struct stat st;
	int fd = nt_open_input(path, flags, &st, why, whylen), r;

	memset(out, 0, sizeof(*out));
	if (fd < 0)
		return fd;
	if ((uint64_t)st.st_size > max) {
		snprintf(why, whylen, "larger than %zu bytes", max);
		close(fd);
		return -EFBIG;
	}
	r = nt_read_fd(fd, max, out, why, whylen);
	close(fd);
	return r;
}

void *nt_xgrow(void *p, size_t n, size_t size)
{
	/* room for element n: capacity doubles at every power of two, so
	 * appending one by one costs O(n) copies, not O(n^2) */
	if (n >= 8 && (n & (n - 1)))
		return p;
	return nt_xrealloc(p, (n < 8 ? 8 : 2 * n) * size);
}

int nt_write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (w == 0)
			return -EIO;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

void nt_buf_json_str_or_null(struct nt_buf *b, const char *s)
{
	if (s)
		nt_buf_json_str(b, s);
	else
		nt_buf_puts(b, "null");
}
