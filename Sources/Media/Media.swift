/// Pure media codecs for the audio path: RTP header views and writers, SRTP sessions (libsrtp2),
/// Ogg Opus and WAV files. No sockets, no clocks.
public enum Media {}
