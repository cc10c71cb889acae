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

/* Writes script to path (stdout when NULL): signed when cert is given,
 * else only encoded.  Errors go to stderr as "nettune WHO: ..."; returns 0
 * or -1. */
int nt_ps1_write(const struct nt_buf *script, const char *cert, const char *key,
		 const char *path, const char *who);

#endif
