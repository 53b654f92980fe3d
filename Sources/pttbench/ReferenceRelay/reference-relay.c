// A minimal C fan-out relay (recvmmsg + sendmmsg, no crypto), the yardstick pttd's relay is compared with in
// Docs/BENCHMARKS.md. Not part of the build (excluded in Package.swift); compile it by hand:
//
//     cc -O2 -o /tmp/reference-relay Sources/pttbench/ReferenceRelay/reference-relay.c
//     taskset -c 0 /tmp/reference-relay 39100 &
//     taskset -c 1 pttbench --external-relay 39100 --external-pid $! --listeners 10 --flood
//
// What it does, like pttd's relay with `mediaSecurity: none`: learns a listener from its RTCP keep-alive (the
// SSRC in the RR), and forwards every RTP packet of payload type 111 from the first SSRC that sends RTP to
// every listener, with a fresh 16-byte header per listener: its own SSRC (keep-alive SSRC ^ 0x80000000) and
// sequence number, the speaker in the CSRC, timestamp and marker passed through. One sendmmsg per read batch
// (at most 1024 datagrams per call). It does not authenticate, check Opus, or know about floors or channels.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_LISTENERS 5000
#define BATCH 64
#define SLOT 2048
#define OUT_MAX 1024
#define OUT_SLOT 1500

struct listener { struct sockaddr_in addr; uint32_t ssrc; uint16_t seq; };

static struct listener listeners[MAX_LISTENERS];
static int listener_count;

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }
static void put32(uint8_t *p, uint32_t v) { p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v; }

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: reference-relay PORT\n"); return 2; }
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    int size = 4 << 20;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
    struct sockaddr_in local = { .sin_family = AF_INET, .sin_port = htons(atoi(argv[1])), .sin_addr.s_addr = htonl(0x7f000001) };
    if (bind(fd, (struct sockaddr *)&local, sizeof local) != 0) { perror("bind"); return 1; }

    static uint8_t in[BATCH][SLOT];
    static struct sockaddr_in from[BATCH];
    static struct iovec in_iov[BATCH];
    static struct mmsghdr in_msg[BATCH];
    static uint8_t out[OUT_MAX][OUT_SLOT];
    static struct iovec out_iov[OUT_MAX];
    static struct mmsghdr out_msg[OUT_MAX];
    for (int i = 0; i < BATCH; i++) {
        in_iov[i] = (struct iovec){ in[i], SLOT };
        in_msg[i].msg_hdr = (struct msghdr){ .msg_name = &from[i], .msg_iov = &in_iov[i], .msg_iovlen = 1 };
    }
    uint32_t talker = 0;
    int have_talker = 0;
    for (;;) {
        for (int i = 0; i < BATCH; i++) in_msg[i].msg_hdr.msg_namelen = sizeof from[i];
        int n = recvmmsg(fd, in_msg, BATCH, MSG_WAITFORONE, NULL);
        if (n < 0) { if (errno == EINTR) continue; perror("recvmmsg"); return 1; }
        int queued = 0;
        for (int m = 0; m < n; m++) {
            uint8_t *p = in[m];
            int len = in_msg[m].msg_len;
            if (len >= 8 && p[1] >= 192 && p[1] <= 223) {          // RTCP keep-alive: learn the listener
                uint32_t ssrc = be32(p + 4);
                int known = 0;
                for (int i = 0; i < listener_count; i++) if (listeners[i].ssrc == ssrc) { listeners[i].addr = from[m]; known = 1; break; }
                if (!known && listener_count < MAX_LISTENERS)
                    listeners[listener_count++] = (struct listener){ from[m], ssrc, (uint16_t)(ssrc >> 7) };
                continue;
            }
            if (len < 12 || (p[0] >> 6) != 2 || (p[1] & 0x7f) != 111) continue;
            uint32_t ssrc = be32(p + 8);
            if (!have_talker) { talker = ssrc; have_talker = 1; }
            if (ssrc != talker) continue;
            int header = 12 + 4 * (p[0] & 0x0f);
            if (header > len) continue;
            int payload = len - header;
            if (16 + payload > OUT_SLOT) continue;
            for (int i = 0; i < listener_count; i++) {
                struct listener *l = &listeners[i];
                if (l->ssrc == talker) continue;
                uint8_t *o = out[queued];
                o[0] = 0x81;                       // V=2, CC=1
                o[1] = p[1];                       // marker + PT
                o[2] = l->seq >> 8; o[3] = l->seq; l->seq++;
                memcpy(o + 4, p + 4, 4);           // timestamp
                put32(o + 8, l->ssrc ^ 0x80000000u);
                put32(o + 12, talker);
                memcpy(o + 16, p + header, payload);
                out_iov[queued] = (struct iovec){ o, 16 + payload };
                out_msg[queued].msg_hdr = (struct msghdr){ .msg_name = &l->addr, .msg_namelen = sizeof l->addr,
                                                           .msg_iov = &out_iov[queued], .msg_iovlen = 1 };
                if (++queued == OUT_MAX) {
                    for (int sent = 0; sent < queued;) { int r = sendmmsg(fd, out_msg + sent, queued - sent, 0); if (r <= 0) break; sent += r; }
                    queued = 0;
                }
            }
        }
        for (int sent = 0; sent < queued;) { int r = sendmmsg(fd, out_msg + sent, queued - sent, 0); if (r <= 0) break; sent += r; }
    }
}
