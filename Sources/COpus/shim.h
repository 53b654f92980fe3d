#ifndef PTTRELAY_COPUS_SHIM_H
#define PTTRELAY_COPUS_SHIM_H

/*
 * libopus for Swift.
 *
 * opus_encoder_ctl / opus_decoder_ctl are C variadic functions, which Swift
 * cannot call. Each wrapper below fixes one request's argument types so Swift
 * sees an ordinary function. Every wrapper returns the libopus status code
 * (OPUS_OK or a negative OPUS_* error).
 */

#include <opus/opus.h>

/* ---- Encoder: setters ---- */

static inline int copus_encoder_set_bitrate(OpusEncoder *st, opus_int32 bitrate) {
    return opus_encoder_ctl(st, OPUS_SET_BITRATE(bitrate));
}

static inline int copus_encoder_set_complexity(OpusEncoder *st, opus_int32 complexity) {
    return opus_encoder_ctl(st, OPUS_SET_COMPLEXITY(complexity));
}

static inline int copus_encoder_set_inband_fec(OpusEncoder *st, opus_int32 enabled) {
    return opus_encoder_ctl(st, OPUS_SET_INBAND_FEC(enabled));
}

static inline int copus_encoder_set_packet_loss_perc(OpusEncoder *st, opus_int32 percent) {
    return opus_encoder_ctl(st, OPUS_SET_PACKET_LOSS_PERC(percent));
}

static inline int copus_encoder_set_dtx(OpusEncoder *st, opus_int32 enabled) {
    return opus_encoder_ctl(st, OPUS_SET_DTX(enabled));
}

/* signal: OPUS_AUTO, OPUS_SIGNAL_VOICE or OPUS_SIGNAL_MUSIC. */
static inline int copus_encoder_set_signal(OpusEncoder *st, opus_int32 signal) {
    return opus_encoder_ctl(st, OPUS_SET_SIGNAL(signal));
}

static inline int copus_encoder_set_signal_voice(OpusEncoder *st) {
    return opus_encoder_ctl(st, OPUS_SET_SIGNAL(OPUS_SIGNAL_VOICE));
}

/* ---- Encoder: getters ---- */

static inline int copus_encoder_get_bitrate(OpusEncoder *st, opus_int32 *bitrate) {
    return opus_encoder_ctl(st, OPUS_GET_BITRATE(bitrate));
}

static inline int copus_encoder_get_complexity(OpusEncoder *st, opus_int32 *complexity) {
    return opus_encoder_ctl(st, OPUS_GET_COMPLEXITY(complexity));
}

static inline int copus_encoder_get_inband_fec(OpusEncoder *st, opus_int32 *enabled) {
    return opus_encoder_ctl(st, OPUS_GET_INBAND_FEC(enabled));
}

static inline int copus_encoder_get_packet_loss_perc(OpusEncoder *st, opus_int32 *percent) {
    return opus_encoder_ctl(st, OPUS_GET_PACKET_LOSS_PERC(percent));
}

static inline int copus_encoder_get_dtx(OpusEncoder *st, opus_int32 *enabled) {
    return opus_encoder_ctl(st, OPUS_GET_DTX(enabled));
}

static inline int copus_encoder_get_signal(OpusEncoder *st, opus_int32 *signal) {
    return opus_encoder_ctl(st, OPUS_GET_SIGNAL(signal));
}

/* Samples per channel (at the encoder's sample rate) the encoder delays its input by. */
static inline int copus_encoder_get_lookahead(OpusEncoder *st, opus_int32 *samples) {
    return opus_encoder_ctl(st, OPUS_GET_LOOKAHEAD(samples));
}

/* Final state of the range coder after the last encode; matches the decoder's on a clean channel. */
static inline int copus_encoder_get_final_range(OpusEncoder *st, opus_uint32 *range) {
    return opus_encoder_ctl(st, OPUS_GET_FINAL_RANGE(range));
}

static inline int copus_encoder_reset_state(OpusEncoder *st) {
    return opus_encoder_ctl(st, OPUS_RESET_STATE);
}

/* ---- Decoder ---- */

/* Samples per channel produced by the last decode (or loss concealment) call. */
static inline int copus_decoder_get_last_packet_duration(OpusDecoder *st, opus_int32 *samples) {
    return opus_decoder_ctl(st, OPUS_GET_LAST_PACKET_DURATION(samples));
}

static inline int copus_decoder_get_final_range(OpusDecoder *st, opus_uint32 *range) {
    return opus_decoder_ctl(st, OPUS_GET_FINAL_RANGE(range));
}

static inline int copus_decoder_reset_state(OpusDecoder *st) {
    return opus_decoder_ctl(st, OPUS_RESET_STATE);
}

#endif /* PTTRELAY_COPUS_SHIM_H */
