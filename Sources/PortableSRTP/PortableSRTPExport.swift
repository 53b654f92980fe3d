// SRTPProfile, SRTPKey, SRTPError, SRTPDirection and SRTPSSRCSelection live in SRTPFormat (shared with the
// server's SRTP); users of PortableSRTP see them through `import PortableSRTP`.
@_exported import SRTPFormat
