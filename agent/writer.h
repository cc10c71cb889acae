/* SPDX-License-Identifier: MIT */
/*
 * The agent's disk writer: a thread that makes the journals of the
 * corrections durable (their fsyncs and the journal directory's) and
 * writes the metrics textfile, so that the event loop never waits for the
 * disk (an fsync here takes 1-10 ms; a drift that arrived meanwhile waited
 * as long).  The loop hands it work and goes on; the latest metrics text
 * replaces one not yet written.
 */
#ifndef NT_AGENT_WRITER_H
#define NT_AGENT_WRITER_H

#include <stddef.h>

#include "../compiler/base/buf.h"

/* 0, or -errno with err saying why (the thread did not start). */
int nt_writer_start(char *err, size_t errlen);
/* Writes what was handed, then ends the thread. */
void nt_writer_stop(void);
/* fsync the journals of ids (taken: nt_journal_take_unsynced) and the
 * directory jfd (taken: closed once done). */
void nt_writer_journals(int jfd, char **ids, size_t n);
/* Write text (taken) to path, atomically. */
void nt_writer_metrics(struct nt_buf *text, const char *path);
/* The last failure since the previous call ("" none), for the loop to log. */
void nt_writer_failure(char *out, size_t n);

#endif
