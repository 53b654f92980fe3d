#ifndef CSRTP_SHIM_H
#define CSRTP_SHIM_H
#include <srtp2/srtp.h>

/* SRTP_MAX_TRAILER_LEN is a compound macro that Swift does not import: expose it as functions. */

/// The tail room srtp_protect() may write after an RTP packet (SRTP_MAX_TRAILER_LEN).
static inline int csrtp_max_trailer_len(void) { return SRTP_MAX_TRAILER_LEN; }

/// The tail room srtp_protect_rtcp() may write after an RTCP packet (SRTP_MAX_TRAILER_LEN + 4).
static inline int csrtp_max_rtcp_trailer_len(void) { return SRTP_MAX_TRAILER_LEN + 4; }

#endif
