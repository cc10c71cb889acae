/* SPDX-License-Identifier: MIT */
/*
 * The netlink transport of every request nettune makes (ethtool generic
 * netlink and rtnetlink): one request at a time on a socket, its replies
 * matched by sequence number and port, the wait bounded.
 *
 * The fault model: a request can fail with the kernel's error reply, a
 * send error, a receive error (ENOBUFS: replies were dropped), a
 * truncated datagram, a malformed message or no answer within the bound
 * (NETTUNE_NL_TIMEOUT_MS, default 15000).  A reply with another sequence
 * number (an earlier request's) is skipped.  After every failure that is
 * not the kernel's own answer the socket is closed and opened afresh, so
 * that what the kernel still sends for the failed request can never be
 * read as the answer to the next one.  Such a failure is "transient"
 * (nt_nl_transient): a read can be asked again, and the outcome of a
 * write is unknown (the caller reads it back).
 *
 * A signal (SIGTERM, SIGINT, SIGHUP: nt_interrupted) ends a wait at once
 * with -EINTR while nt_nl_abort_on_signal is set (an apply's forward
 * steps); a rollback clears it and finishes its requests, each still
 * bounded by the timeout.
 */
#ifndef NT_NLIO_H
#define NT_NLIO_H

#include <linux/netlink.h>
#include <stdbool.h>
#include <stddef.h>

#include "ethnl.h"

struct nt_nl;

extern bool nt_nl_abort_on_signal;

/* A socket of protocol NETLINK_GENERIC or NETLINK_ROUTE; 0 or -errno. */
int nt_nl_open(struct nt_nl **out, int protocol);
void nt_nl_close(struct nt_nl *s);

/* Each reply message of the request (not the ack, error or end of dump);
 * a negative return is kept and returned once the request has ended. */
typedef int (*nt_nl_cb)(const struct nlmsghdr *h, void *arg);

/*
 * Sends req (its length, type, flags and payload set; the sequence number
 * and port are filled in here, and NLM_F_ACK for a request that is not a
 * dump) and reads every reply until its ack, error or end of dump.
 * Returns 0, the kernel's -errno (its extended ack text kept in the socket
 * for nt_nl_reason), or a transport failure: -EIO (send), -ENOBUFS, -EMSGSIZE
 * (truncated), -EPROTO (malformed), -ETIMEDOUT, -EAGAIN (a dump
 * interrupted by a change: NLM_F_DUMP_INTR), -EINTR (a signal).
 */
int nt_nl_transact(struct nt_nl *s, struct nlmsghdr *req, nt_nl_cb cb, void *arg,
		   enum nt_io_req what);
/* Whether the last failure of nt_nl_transact was the transport's (not
 * the kernel's answer). */
bool nt_nl_transient(const struct nt_nl *s);
/* The words for a failure of the last request ("no answer within 15 s",
 * the kernel's extended ack, or strerror). */
const char *nt_nl_reason(const struct nt_nl *s, int err, char *buf, size_t len);


/* The family an ethtool notification (ETHTOOL_MSG_*_NTF) is of, in
 * words ("features", "channels"), or NULL for one that carries nothing
 * nettune sets (cable tests, modules). */
const char *nt_ethnl_ntf_name(unsigned cmd);

#endif
