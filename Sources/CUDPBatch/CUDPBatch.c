#define _GNU_SOURCE
#include "CUDPBatch.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

int cudp_open(const char *host, int port, int receive_buffer, int send_buffer, char *error, size_t error_length) {
    struct addrinfo hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_DGRAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    char service[16];
    snprintf(service, sizeof service, "%d", port);
    struct addrinfo *found = NULL;
    int status = getaddrinfo(host && host[0] ? host : NULL, service, &hints, &found);
    if (status != 0) {
        snprintf(error, error_length, "cannot resolve '%s': %s", host ? host : "", gai_strerror(status));
        return -1;
    }
    int fd = -1;
    int last_errno = 0;
    const char *step = "socket";
    for (struct addrinfo *a = found; a != NULL && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) { last_errno = errno; step = "socket"; continue; }
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer);
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &send_buffer, sizeof send_buffer);
        if (bind(fd, a->ai_addr, a->ai_addrlen) != 0) {
            last_errno = errno;
            step = "bind";
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(found);
    if (fd < 0) snprintf(error, error_length, "%s %s:%d: %s", step, host ? host : "", port, strerror(last_errno));
    return fd;
}

enum { CUDP_CHUNK = 256 };

int cudp_send_batch(int fd, const cudp_datagram *datagrams, int count, int *failure) {
    struct mmsghdr messages[CUDP_CHUNK];
    struct iovec vectors[CUDP_CHUNK];
    int sent = 0;
    *failure = 0;
    while (sent < count) {
        int chunk = count - sent < CUDP_CHUNK ? count - sent : CUDP_CHUNK;
        for (int i = 0; i < chunk; i++) {
            const cudp_datagram *d = &datagrams[sent + i];
            vectors[i].iov_base = (void *)d->bytes;
            vectors[i].iov_len = d->length;
            memset(&messages[i], 0, sizeof messages[i]);
            messages[i].msg_hdr.msg_name = (void *)&d->address;
            messages[i].msg_hdr.msg_namelen = d->addressLength;
            messages[i].msg_hdr.msg_iov = &vectors[i];
            messages[i].msg_hdr.msg_iovlen = 1;
        }
        int result = sendmmsg(fd, messages, (unsigned int)chunk, 0);
        if (result < 0) {
            if (errno == EINTR) continue;
            *failure = errno;
            return sent;
        }
        sent += result;
        if (result < chunk) {
            /* The kernel stopped early without an error for this call: the next call reports it. */
            continue;
        }
    }
    return sent;
}
