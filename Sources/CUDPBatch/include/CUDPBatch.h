#ifndef CUDPBATCH_H
#define CUDPBATCH_H

#include <stddef.h>
#include <sys/socket.h>
#include <netinet/in.h>

/* The relay's UDP socket, opened here so that the relay knows its descriptor and can send a whole
   fan-out with one sendmmsg (NIO reads from the same socket). */

/// One datagram of a batch: where it goes and its bytes (mirrors struct mmsghdr without exposing it).
typedef struct {
    struct sockaddr_storage address;
    socklen_t addressLength;
    const void *bytes;
    size_t length;
} cudp_datagram;

/// Opens a non-blocking, close-on-exec UDP socket bound to host:port (numeric or resolvable host; "" or
/// NULL for any address), with SO_REUSEADDR and the given buffer sizes. Returns the descriptor, or -1
/// with a message in `error` (at most `error_length` bytes, NUL-terminated).
int cudp_open(const char *host, int port, int receive_buffer, int send_buffer, char *error, size_t error_length);

/// Sends `count` datagrams with as few sendmmsg calls as possible (256 datagrams each).
/// Returns how many were sent before the first that failed; `*failure` is then that send's errno (0 when
/// all were sent).
int cudp_send_batch(int fd, const cudp_datagram *datagrams, int count, int *failure);

#endif
