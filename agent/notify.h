/* SPDX-License-Identifier: MIT */
/*
 * The systemd notify protocol (sd_notify(3), "NOTIFY_SOCKET"), spoken
 * directly: one datagram of newline-separated VAR=VALUE assignments to the
 * AF_UNIX socket $NOTIFY_SOCKET names (a leading '@' is the abstract
 * namespace).  Without $NOTIFY_SOCKET every call does nothing.
 */
#ifndef NT_AGENT_NOTIFY_H
#define NT_AGENT_NOTIFY_H

#include <stdint.h>

/* Sends the assignments (e.g. "READY=1\nSTATUS=converged"); 0 sent, 0
 * when there is no socket, -errno. */
int nt_notify(const char *state);
/* printf-like */
int nt_notifyf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The watchdog interval systemd asks for ($WATCHDOG_USEC, when
 * $WATCHDOG_PID is unset or this process), in microseconds; 0: none. */
uint64_t nt_notify_watchdog_usec(void);

#endif
