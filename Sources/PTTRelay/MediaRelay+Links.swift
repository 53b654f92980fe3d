import NIOCore
import Opus
import PTTCore
import RTP

/// A cluster's media between nodes: a channel's audio crosses to each node with listeners once, on the channel's
/// links (``RelayChannelLinks``), through its owner.
extension MediaRelay {
    /// Puts a channel's links in place of the ones it had. A link whose parameters did not change keeps its SRTP
    /// state (a new one on the same key would restart its rollover counter).
    func setLinks(_ channel: ChannelID, _ update: RelayChannelLinks?) {
        let old = channels[channel]?.links ?? []
        var kept: [RelayMember] = []
        for link in update?.links ?? [] {
            let config = link.memberConfig(in: channel)
            if let same = old.first(where: { $0.config == config && $0.linkPeer == link.peer }) {
                kept.append(same)
                continue
            }
            guard membersBySSRC[config.ssrc] == nil else {
                logger.error(
                    "a node link's SSRC is taken by a member: no media over this link for the channel",
                    metadata: ["peer": "\(link.peer)", "channel": "\(channel)"])
                continue
            }
            let crypto: MemberCrypto
            do {
                crypto = try MemberCrypto(
                    key: config.key, suite: config.suite, ssrc: config.ssrc, listenSSRC: config.listenSSRC,
                    secure: true)
            } catch {
                logger.error(
                    "cannot set up media protection for a node link",
                    metadata: ["peer": "\(link.peer)", "error": "\(error)"])
                continue
            }
            let member = RelayMember(config: config, crypto: crypto)
            member.linkPeer = link.peer
            member.address = link.address
            membersBySSRC[config.ssrc] = member
            kept.append(member)
        }
        for link in old where !kept.contains(where: { $0 === link }) {
            if membersBySSRC[link.config.ssrc] === link { membersBySSRC[link.config.ssrc] = nil }
        }
        if update == nil, channels[channel] == nil { return }
        channels[channel, default: RelayChannelState(channel: channel)].links = kept
        channels[channel]!.linkOwner = update?.owner
        if channels[channel]!.isEmpty { channels[channel] = nil }
    }

    /// A datagram on a channel's link (its SSRC is the link's): authenticated with the pair's key, taken only from
    /// the owner when another node owns the channel, and only with the floor holder as its speaker (the CSRC), or
    /// the member that released the floor within its grace; then fanned out as if the speaker had sent it here.
    func receiveFromLink(
        _ link: RelayMember, _ bytes: UnsafeMutableRawBufferPointer, isRTCP: Bool, now: NIODeadline,
        via handler: MediaRelayHandler
    ) {
        guard !isRTCP else { return metrics.dropped(.malformed) }
        guard let length = link.crypto.unprotectRTP(bytes, length: bytes.count) else {
            return metrics.dropped(.authentication)
        }
        metrics.linkReceived.increment()
        let packet = UnsafeMutableRawBufferPointer(rebasing: bytes[0..<length])
        guard let header = try? RTPHeader.parse(UnsafeRawBufferPointer(packet)), header.csrcCount >= 1 else {
            return metrics.dropped(.malformed)
        }
        guard let state = channels[link.channel], state.linkOwner == nil || state.linkOwner == link.linkPeer else {
            return metrics.dropped(.notFloorHolder)
        }
        let speakerSSRC = header.csrc(at: 0, in: UnsafeRawBufferPointer(packet))
        // The holder's, or (on an idle floor) the late packets of the one who just released it (the release grace).
        let fromHolder =
            speakerSSRC == state.holderSSRC
            || (state.holderSSRC == nil && state.lateAudio.map { $0.ssrc == speakerSSRC && now < $0.until } == true)
        guard fromHolder, let speaker = membersBySSRC[speakerSSRC], speaker.linkPeer == nil,
            speaker.channel == link.channel
        else { return metrics.dropped(.notFloorHolder) }
        guard header.payloadType == RelayRules.opusPayloadType else { return metrics.dropped(.payloadType) }
        let payload = UnsafeRawBufferPointer(rebasing: packet[header.payloadRange(packetLength: length)])
        guard (try? OpusPacket.validate(payload)) != nil else { return metrics.dropped(.opus) }
        forward(packet, header: header, from: speaker, now: now, via: handler, arrivedOn: link)
    }

    /// Writes one copy for each of the channel's links that should have it (see ``RelayChannelLinks``).
    func forwardToLinks(
        _ links: [RelayMember], owned: Bool, arrivedOn: RelayMember?, marker: Bool, timestamp: UInt32,
        speakerSSRC: UInt32, payload: UnsafeRawBufferPointer, maxLength: Int, via handler: MediaRelayHandler
    ) {
        // Another node's copies stop here unless this node owns the channel.
        guard arrivedOn == nil || owned else { return }
        var sent = 0
        for link in links where link !== arrivedOn {
            let sequence = link.nextSequence
            link.nextSequence &+= 1
            let crypto = link.crypto
            let ssrc = link.config.listenSSRC
            let written = handler.write(to: link, maxLength: maxLength) { out in
                crypto.writeCopy(
                    into: out, marker: marker, sequence: sequence, timestamp: timestamp, ssrc: ssrc, csrc: speakerSSRC,
                    payload: payload)
            }
            if written { sent += 1 } else { metrics.dropped(.protectFailed) }
        }
        metrics.linkSent.increment(by: Int64(sent))
    }
}
