/// RTP and RTCP packets: header views, parsers and writers that do not allocate. No sockets, no clocks;
/// SRTP is its own module.
public enum RTP {}
