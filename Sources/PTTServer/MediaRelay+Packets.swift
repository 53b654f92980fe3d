import Media
import NIOCore
import Opus
import PTTCore

/// Datagrams produced during one read batch, written and flushed together (one `sendmmsg`).
///
/// Every listener's copy is written into one buffer; the slices are taken only once the batch is complete,
/// so writing never copies earlier copies (a slice shares the buffer's storage).
struct PendingWrites {
    var buffer: ByteBuffer?
    var entries: [(offset: Int, length: Int, to: SocketAddress)] = []

    mutating func flush(_ context: ChannelHandlerContext) {
        guard let buffer, !entries.isEmpty else { return }
        for entry in entries {
            let slice = buffer.getSlice(at: entry.offset, length: entry.length)!
            context.write(NIOAny(AddressedEnvelope(remoteAddress: entry.to, data: slice)), promise: nil)
        }
        context.flush()
        entries.removeAll(keepingCapacity: true)
        self.buffer = nil
    }
}

extension MediaRelay {
    /// Why a datagram was dropped (the label of `ptt_media_packets_dropped_total`).
    enum DropReason: String, CaseIterable {
        case malformed, unknownSSRC = "unknown-ssrc", authentication, payloadType = "payload-type", opus
        case notFloorHolder = "not-floor-holder", receiveOnly = "receive-only"
    }

    func drop(_ reason: DropReason) {
        metrics.mediaDropped(reason: reason.rawValue)
    }

    /// Handles one datagram: authenticate, learn the address, check the floor, forward.
    func receive(_ envelope: AddressedEnvelope<ByteBuffer>, into pending: inout PendingWrites, allocator: ByteBufferAllocator) {
        metrics.mediaReceived.increment()
        let now = NIODeadline.now()
        // Work on a copy in the relay's scratch space: decrypting in place in the received buffer would copy
        // it (it shares storage with the rest of the read batch), which allocates.
        let count = envelope.data.readableBytes
        guard count <= scratch.count else { return drop(.malformed) }
        envelope.data.withUnsafeReadableBytes { scratch.copyMemory(from: $0) }
        do {
            let bytes = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<count])
            guard bytes.count >= 8 else { return drop(.malformed) }
            let isRTCP = RTPHeader.isRTCP(UnsafeRawBufferPointer(bytes))
            guard isRTCP || bytes.count >= 12 else { return drop(.malformed) }
            let ssrcOffset = isRTCP ? 4 : 8
            let ssrc = UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: ssrcOffset, as: UInt32.self))
            guard let member = membersBySSRC[ssrc] else { return drop(.unknownSSRC) }
            let clear = isRTCP ? member.crypto.unprotectRTCP(bytes, length: bytes.count) : member.crypto.unprotectRTP(bytes, length: bytes.count)
            guard let length = clear else { return drop(.authentication) }

            // Authenticated: the member is here (and may have moved).
            if member.address != envelope.remoteAddress {
                if member.address != nil { metrics.mediaAddressChanges.increment() }
                member.address = envelope.remoteAddress
            }
            member.lastHeard = now
            if isRTCP {
                reportHeard(member, talking: false, now: now)
                return
            }
            guard member.config.receiveOnly == false else { return drop(.receiveOnly) }
            let packet = UnsafeMutableRawBufferPointer(rebasing: bytes[0..<length])
            guard let header = try? RTPHeader.parse(UnsafeRawBufferPointer(packet)) else { return drop(.malformed) }
            let payload = header.payloadRange(packetLength: length)
            guard header.payloadType == Self.opusPayloadType else { return drop(.payloadType) }
            guard (try? OpusPacket.validate(UnsafeRawBufferPointer(rebasing: packet[payload]))) != nil else { return drop(.opus) }
            guard let holder = channels[member.channel].map({ $0.holderSSRC }) else { return drop(.unknownSSRC) }
            if holder != nil, holder != ssrc { member.droppedNotHolder += 1 }
            reportHeard(member, talking: true, now: now)
            if holder == ssrc {
                forward(packet, length: length, from: member, now: now, into: &pending, allocator: allocator)
            } else if holder == nil, holdsForImplicitRequest {
                holdForImplicitRequest(packet, from: member, now: now)
            } else {
                drop(.notFloorHolder)
            }
        }
    }

    /// Copies written before the relay flushes, even inside a read batch (NIO sends up to 1024 per sendmmsg).
    static let maxPendingWrites = 1024

    /// The RTP payload type the relay accepts and sends for Opus.
    static let opusPayloadType: UInt8 = 111

    /// Keeps the first packets of a member talking on an idle floor until the implicit request is decided.
    private func holdForImplicitRequest(_ packet: UnsafeMutableRawBufferPointer, from member: RelayMember, now: NIODeadline) {
        if var waiting = waitingForFloor[member.channel], waiting.ssrc == member.config.ssrc,
           now - waiting.since < .milliseconds(500) {
            guard waiting.packets.count < Self.maxWaitingPackets else { return drop(.notFloorHolder) }
            waiting.packets.append(Array(packet))
            waitingForFloor[member.channel] = waiting
        } else {
            if let replaced = waitingForFloor[member.channel] { metrics.mediaDropped(reason: "not-floor-holder", count: replaced.packets.count) }
            waitingForFloor[member.channel] = (member.config.ssrc, now, [Array(packet)])
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
        report?(.heard(member.config.id, channel: member.channel, talking: talking, droppedNotHolder: member.droppedNotHolder))
    }

    /// Writes one copy of an authenticated, decrypted RTP packet for every other reachable member: the
    /// listener's SSRC and sequence number, the channel's continuous timestamp, the speaker in CSRC,
    /// the marker on a burst's first packet, protected with the listener's key.
    func forward(_ packet: UnsafeMutableRawBufferPointer, length: Int, from speaker: RelayMember, now: NIODeadline,
                 into pending: inout PendingWrites, allocator: ByteBufferAllocator) {
        guard let header = try? RTPHeader.parse(UnsafeRawBufferPointer(packet)), channels[speaker.channel] != nil else { return }
        let payloadRange = header.payloadRange(packetLength: length)
        let payload = UnsafeRawBufferPointer(rebasing: packet[payloadRange])
        let (timestamp, startsBurst) = channels[speaker.channel]!.mapTimestamp(header.timestamp, from: speaker.config.ssrc, now: now)
        let marker = startsBurst || header.marker
        let outLength = 16 + payload.count
        let members = channels[speaker.channel]!.members
        let capacity = min(max(members.count, 2), Self.maxPendingWrites) * (outLength + 32) + MemberCrypto.maxTrailer
        if pending.buffer == nil { pending.buffer = allocator.buffer(capacity: capacity) }
        var forwarded = 0
        for listener in members where listener !== speaker {
            // Never let a read batch pile up unbounded work before its first send (1000 listeners × 256 datagrams).
            if pending.entries.count >= Self.maxPendingWrites, let context = handlerContext {
                pending.flush(context)
                pending.buffer = allocator.buffer(capacity: capacity)
            }
            guard let address = listener.address else { continue }
            if let heard = listener.lastHeard, now - heard > silenceTimeout { continue }
            let config = listener.config
            let sequence = listener.nextSequence
            listener.nextSequence &+= 1
            let offset = pending.buffer!.writerIndex
            let written = pending.buffer!.writeWithUnsafeMutableBytes(minimumWritableBytes: outLength + MemberCrypto.maxTrailer) { out in
                guard let length = try? RTPHeader.writePacket(
                    into: out, marker: marker, payloadType: Self.opusPayloadType, sequenceNumber: sequence,
                    timestamp: timestamp, ssrc: config.listenSSRC, csrc: speaker.config.ssrc, payload: payload) else { return 0 }
                return listener.crypto.protectRTP(out.baseAddress!, length: length, capacity: out.count) ?? 0
            }
            guard written > 0 else { continue }
            pending.entries.append((offset, written, address))
            forwarded += 1
        }
        metrics.mediaForwarded.increment(by: Int64(forwarded))
    }
}
