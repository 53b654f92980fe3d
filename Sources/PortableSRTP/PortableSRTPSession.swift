// Placeholder while PortableSRTP is written (issue 22): replaced by the SRTP session on swift-crypto.
enum PortableSRTPPlaceholder {}
