// SRTPProfile, SRTPKey, SRTPError, SRTPDirection and SRTPSSRCSelection live in SRTPFormat (shared with
// PortableSRTP); users of SRTP keep seeing them through `import SRTP`.
@_exported import SRTPFormat
