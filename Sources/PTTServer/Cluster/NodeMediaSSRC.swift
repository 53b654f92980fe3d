import Crypto
import PTTCore

/// The SSRCs of a channel's media between two nodes: derived from the pair's key, the channel and the sending
/// node, so both ends agree without saying more, and no two channels or directions of a pair share one (SRTP's
/// keystream is unique per key and SSRC).
enum NodeMediaSSRC {
    static func derive(key: [UInt8], channel: ChannelID, sender: String) -> UInt32 {
        var hash = SHA256()
        hash.update(data: key)
        hash.update(data: Array("ptt node media \(channel) \(sender)".utf8))
        let digest = Array(hash.finalize())
        let value = UInt32(digest[0]) << 24 | UInt32(digest[1]) << 16 | UInt32(digest[2]) << 8 | UInt32(digest[3])
        return value == 0 ? 1 : value
    }
}
