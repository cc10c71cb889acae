/* SPDX-License-Identifier: MIT */
/*
 * PowerShell script encoding and Authenticode signing.  Windows PowerShell
 * 5.1 reads a script without a BOM in the ANSI code page, so a script with
 * any non-ASCII byte gets a UTF-8 BOM; a signed script also gets CRLF line
 * ends, as Set-AuthenticodeSignature's output has them.  Signing runs
 * osslsigncode (Debian package osslsigncode), which is needed only then.
 */
#ifndef NT_AUTHENTICODE_H
#define NT_AUTHENTICODE_H

#include <stdbool.h>

#include "../../compiler/base/buf.h"

/* Appends in to out: a UTF-8 BOM first when in has a non-ASCII byte (and
 * none yet), LF turned into CRLF when crlf. */
void nt_ps1_encode(const struct nt_buf *in, bool crlf, struct nt_buf *out);

/* Signs script (encoded as above, CRLF) with the PEM certificate (chain)
 * cert and the unencrypted PEM private key key; out receives the signed
 * script.  Returns 0, or -1 with the reason in err. */
int nt_ps1_sign(const struct nt_buf *script, const char *cert, const char *key,
		struct nt_buf *out, struct nt_buf *err);

/* Writes script to path (stdout when NULL): signed when cert is given,
 * else only encoded.  Errors go to stderr as "nettune WHO: ..."; returns 0
 * or -1. */
int nt_ps1_write(const struct nt_buf *script, const char *cert, const char *key,
		 const char *path, const char *who);

#endif
