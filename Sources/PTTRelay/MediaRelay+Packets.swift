import NIOCore
import Opus
import PTTCore
import RTP

extension MediaRelay {
    /// Handles one datagram: authenticate, learn the address, decide (``RelayRules``), carry it out.
    func receive(_ envelope: AddressedEnvelope<ByteBuffer>, via handler: MediaRelayHandler) {
        if hasPendingChanges.load(ordering: .acquiring) { applyPendingChanges(beforeDatagram: true) }
        metrics.received.increment()
        let now = clock()
        // Work on a copy in the relay's scratch space: decrypting in place in the received buffer would copy
        // it (it shares storage with the rest of the read batch), which allocates.
        let count = envelope.data.readableBytes
        guard count <= scratch.count else { return metrics.dropped(.malformed) }
        envelope.data.withUnsafeReadableBytes { scratch.copyMemory(from: $0) }
        let bytes = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<count])
        let kind = DatagramKind(UnsafeRawBufferPointer(bytes))
        let ssrc: UInt32
        switch kind {
        case .malformed: return metrics.dropped(.malformed)
        case .rtp(let value), .rtcp(let value): ssrc = value
        }
        guard let member = membersBySSRC[ssrc] else { return metrics.dropped(.unknownSSRC) }
        let isRTCP = kind == .rtcp(ssrc: ssrc)
        if member.linkPeer != nil { return receiveFromLink(member, bytes, isRTCP: isRTCP, now: now, via: handler) }
        let clear =
            isRTCP
            ? member.crypto.unprotectRTCP(bytes, length: count) : member.crypto.unprotectRTP(bytes, length: count)
        guard let length = clear else { return metrics.dropped(.authentication) }

        // Authenticated: the member is here (and may have moved).
        let previouslyHeard = member.lastHeard
        let wasReachable = member.rawAddress.length != 0 && previouslyHeard.map { now - $0 <= silenceTimeout } == true
        let moved = member.address != envelope.remoteAddress
        if moved {
            if member.address != nil { metrics.addressChanges.increment() }
            member.address = envelope.remoteAddress
        }
        member.lastHeard = now
        if !wasReachable {
            becameReachable(member, previouslyHeard: moved ? nil : previouslyHeard, now: now)
        } else if moved, member.wokenGeneration == channels[member.channel]?.generation {
            // Woken for this burst, and heard from a new socket: the woken app's. The plane woke it because it
            // counted it silent; the relay, whose reports lag its own view by up to a report interval, still sent
            // to the old address, which never reached the app. It catches up from the burst's first packet.
            becameReachable(member, previouslyHeard: nil, now: now)
        }
        if isRTCP { return reportHeard(member, talking: false, now: now) }

        let packet = UnsafeMutableRawBufferPointer(rebasing: bytes[0..<length])
        guard let header = try? RTPHeader.parse(UnsafeRawBufferPointer(packet)) else {
            return metrics.dropped(.malformed)
        }
        let payload = UnsafeRawBufferPointer(rebasing: packet[header.payloadRange(packetLength: length)])
        let validOpus = (try? OpusPacket.validate(payload)) != nil
        let holderSSRC = channels[member.channel]?.holderSSRC
        // The holder's packets, the common case, cost no look-up of a release's grace.
        let lateAudio = holderSSRC == nil ? channels[member.channel]?.lateAudio : nil
        let decision = rules.decide(
            payloadType: header.payloadType, validOpus: validOpus, sender: member.config,
            holderSSRC: holderSSRC, hold: held[member.channel]?.hold, lateAudio: lateAudio, now: now)
        switch decision {
        case .forward:
            reportHeard(member, talking: true, now: now)
            forward(packet, header: header, from: member, now: now, via: handler)
        case .forwardLate:
            // Heard, but not talking: late audio restarts no timer and asks for no floor.
            reportHeard(member, talking: false, now: now)
            forward(packet, header: header, from: member, now: now, via: handler)
        case .hold(let startsHold):
            reportHeard(member, talking: true, now: now)
            hold(packet, from: member, startsHold: startsHold, now: now)
        case .keepAlive:
            reportHeard(member, talking: false, now: now)
        case .drop(let reason):
            if reason == .notFloorHolder {
                if holderSSRC != nil { member.droppedNotHolder += 1 }
                reportHeard(member, talking: true, now: now)
            }
            metrics.dropped(reason)
        }
    }

    /// Keeps a packet of a member talking on an idle floor until its implicit request is decided.
    private func hold(
        _ packet: UnsafeMutableRawBufferPointer, from member: RelayMember, startsHold: Bool, now: NIODeadline
    ) {
        if startsHold {
            if let replaced = held[member.channel] { metrics.dropped(.notFloorHolder, count: replaced.packets.count) }
            held[member.channel] = (FloorHold(ssrc: member.config.ssrc, since: now, count: 1), [Array(packet)])
        } else {
            held[member.channel]!.hold.count += 1
            held[member.channel]!.packets.append(Array(packet))
        }
    }

    /// Tells the control plane a member was heard, at most every ``reportInterval`` per member and kind
    /// (a keep-alive never delays the report that it started talking).
    private func reportHeard(_ member: RelayMember, talking: Bool, now: NIODeadline) {
        if talking {
            if let last = member.lastTalkReported, now - last < Self.reportInterval { return }
            member.lastTalkReported = now
        } else {
            if let last = member.lastReported, now - last < Self.reportInterval { return }
            member.lastReported = now
        }
        report?(
            .heard(
                member.config.id, channel: member.channel, talking: talking, droppedNotHolder: member.droppedNotHolder))
    }

    /// Writes one copy of an authenticated, decrypted RTP packet for every other reachable member: the
    /// listener's SSRC and sequence number, the channel's continuous timestamp, the speaker in CSRC,
    /// the marker on a burst's first packet, protected with the listener's key. In a cluster, one copy also goes
    /// to each of the channel's links that should have it (`arrivedOn`: the link the packet came from, if any).
    ///
    /// A broadcast's packet goes on to its other channels (``RelayBroadcasts``), where the
    /// memberships in `skipping` get no copy.
    func forward(
        _ packet: UnsafeMutableRawBufferPointer, header: RTPHeader, from speaker: RelayMember, now: NIODeadline,
        via handler: MediaRelayHandler, arrivedOn: RelayMember? = nil, skipping: Set<MemberID>? = nil
    ) {
        guard channels[speaker.channel] != nil else { return }
        let payload = UnsafeRawBufferPointer(rebasing: packet[header.payloadRange(packetLength: packet.count)])
        let (timestamp, startsBurst) = channels[speaker.channel]!.mapTimestamp(
            header.timestamp, from: speaker.config.ssrc, now: now)
        let marker = startsBurst || header.marker
        // Live audio wins: a new burst stops every catch-up and replay in its channel.
        if startsBurst, !keeping.players.isEmpty { keeping.cancelPlaybacks(in: speaker.channel) }
        if keeping.keepsBursts || channels[speaker.channel]!.recording != nil {
            keep(payload, timestamp: timestamp, marker: marker, from: speaker, now: now)
        }
        let members = channels[speaker.channel]!.members
        let maxLength = 16 + payload.count + MemberCrypto.maxTrailer
        handler.reserve(copies: members.count, maxLength: maxLength)
        var forwarded = 0
        var failed = 0
        let speakerSSRC = speaker.config.ssrc
        members.withUnsafeBufferPointer { listeners in
            for index in listeners.indices {
                // The channel's array keeps every member alive for the whole loop: no reference counting
                // per listener (at 1000 listeners it was a tenth of the relay's user-space time).
                unowned(unsafe) let listener = listeners[index]
                // The raw address, not `address`: reading a `SocketAddress` retains its storage box.
                // A member playing kept packets gets this one from the kept burst, in its turn.
                guard listener !== speaker, listener.rawAddress.length != 0, !listener.skipsLive else { continue }
                if let heard = listener.lastHeard, now - heard > silenceTimeout { continue }
                if let skipping, skipping.contains(listener.config.id) { continue }
                let listenSSRC = listener.config.listenSSRC
                let sequence = listener.nextSequence
                listener.nextSequence &+= 1
                unowned(unsafe) let crypto = listener.crypto
                let sent = handler.write(to: listener, maxLength: maxLength) { out in
                    crypto.writeCopy(
                        into: out, marker: marker, sequence: sequence, timestamp: timestamp, ssrc: listenSSRC,
                        csrc: speakerSSRC, payload: payload)
                }
                if sent { forwarded += 1 } else { failed += 1 }
            }
        }
        metrics.forwarded.increment(by: Int64(forwarded))
        if failed > 0 { metrics.dropped(.protectFailed, count: failed) }
        // Outside a cluster the channel has no links: one check, no copy.
        if !channels[speaker.channel]!.links.isEmpty {
            forwardToLinks(
                channels[speaker.channel]!.links, owned: channels[speaker.channel]!.linkOwner == nil,
                arrivedOn: arrivedOn, marker: marker, timestamp: timestamp, speakerSSRC: speakerSSRC,
                payload: payload, maxLength: maxLength, via: handler)
        }
        // Outside a broadcast: one check, no look-up.
        if !broadcasts.isEmpty, arrivedOn == nil {
            broadcasts.forward(packet, header: header, from: speaker, now: now, via: handler)
        }
    }
}
