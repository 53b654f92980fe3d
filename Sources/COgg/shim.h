#ifndef COGG_SHIM_H
#define COGG_SHIM_H
#include <ogg/ogg.h>
#include <stdlib.h>
#include <string.h>

/* Deep copies of libogg state, so Swift value types wrapping it can copy on write.
 * libogg allocates with _ogg_malloc (= malloc, see ogg/os_types.h) and frees with free,
 * so buffers made here are released by ogg_sync_clear / ogg_stream_clear as usual.
 * Both return 0 on success, -1 if memory ran out (dst is then zeroed: clear is a no-op). */

static inline int cogg_sync_copy(ogg_sync_state *dst, const ogg_sync_state *src) {
    *dst = *src;
    dst->data = NULL;
    if (src->data != NULL && src->storage > 0) {
        dst->data = (unsigned char *)malloc((size_t)src->storage);
        if (dst->data == NULL) {
            memset(dst, 0, sizeof(*dst));
            return -1;
        }
        memcpy(dst->data, src->data, (size_t)src->fill);
    }
    return 0;
}

static inline int cogg_stream_copy(ogg_stream_state *dst, const ogg_stream_state *src) {
    *dst = *src;
    dst->body_data = NULL;
    dst->lacing_vals = NULL;
    dst->granule_vals = NULL;
    if (src->body_data != NULL) {
        dst->body_data = (unsigned char *)malloc(src->body_storage > 0 ? (size_t)src->body_storage : 1);
    }
    if (src->lacing_vals != NULL) {
        dst->lacing_vals = (int *)malloc(src->lacing_storage > 0 ? (size_t)src->lacing_storage * sizeof(int) : 1);
    }
    if (src->granule_vals != NULL) {
        dst->granule_vals = (ogg_int64_t *)malloc(
            src->lacing_storage > 0 ? (size_t)src->lacing_storage * sizeof(ogg_int64_t) : 1);
    }
    if ((src->body_data != NULL && dst->body_data == NULL)
        || (src->lacing_vals != NULL && dst->lacing_vals == NULL)
        || (src->granule_vals != NULL && dst->granule_vals == NULL)) {
        free(dst->body_data);
        free(dst->lacing_vals);
        free(dst->granule_vals);
        memset(dst, 0, sizeof(*dst));
        return -1;
    }
    if (src->body_data != NULL) memcpy(dst->body_data, src->body_data, (size_t)src->body_fill);
    if (src->lacing_vals != NULL) memcpy(dst->lacing_vals, src->lacing_vals, (size_t)src->lacing_fill * sizeof(int));
    if (src->granule_vals != NULL)
        memcpy(dst->granule_vals, src->granule_vals, (size_t)src->lacing_fill * sizeof(ogg_int64_t));
    return 0;
}

/* Bytes handed to the sync layer that no page has consumed yet (a partial page or junk). */
static inline long cogg_sync_pending(const ogg_sync_state *oy) {
    return (long)oy->fill - (long)oy->returned;
}

/* Whether the stream holds segments of a packet whose end has not arrived. */
static inline int cogg_stream_has_partial_packet(const ogg_stream_state *os) {
    return os->lacing_fill > os->lacing_returned;
}

#endif
