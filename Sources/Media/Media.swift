/// Pure media codecs for the audio path: RTP header views and writers (SRTP is its own module),
/// Ogg Opus and WAV files. No sockets, no clocks.
public enum Media {}
