#if os(Linux)
import Foundation
import Glibc
import RTP
import SRTP

/// The talker's packets and the listeners' keep-alives.
extension LoadEngine {
    func preparePayloads() {
        var offsets: [Int] = [0]
        for payload in configuration.payloads { offsets.append(offsets.last! + payload.count) }
        let store = UnsafeMutableRawPointer.allocate(byteCount: max(1, offsets.last!), alignment: 16)
        for (index, payload) in configuration.payloads.enumerated() {
            payload.withUnsafeBytes { (store + offsets[index]).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        }
        payloadStore = store
        payloadOffsets = offsets
    }

    /// The talker's packet `sent`: RTP with timestamp base + 960·k, SRTP-protected, sent; its send time noted.
    func sendPacket() {
        let index = sent
        let payloadIndex = index % configuration.payloads.count
        let payload = UnsafeRawBufferPointer(start: payloadStore! + payloadOffsets[payloadIndex],
                                             count: payloadOffsets[payloadIndex + 1] - payloadOffsets[payloadIndex])
        let out = UnsafeMutableRawBufferPointer(start: packetScratch, count: 4096)
        guard var length = try? RTPHeader.writePacket(
            into: out, marker: index == 0, payloadType: 111, sequenceNumber: sequence,
            timestamp: timestampBase &+ UInt32(truncatingIfNeeded: index) &* 960, ssrc: configuration.talker.ssrc, payload: payload)
        else { counts.sendErrors += 1; sent += 1; return }
        if let talkerOut {
            guard let protected = try? talkerOut.protect(packetScratch, length: length, capacity: 4096) else {
                counts.sendErrors += 1; sent += 1; return
            }
            length = protected
        }
        sequence &+= 1
        if index < configuration.maxPackets { sendTimes[index] = LinuxSys.realtime() }
        sent += 1
        lastSend = LinuxSys.now()
        if send(talkerFD, packetScratch, length, Int32(MSG_DONTWAIT)) != length { counts.sendErrors += 1 }
    }

    /// An RTCP keep-alive (empty RR + CNAME) from every listener's socket, SRTCP-protected with its key.
    func sendKeepAlives() {
        for (index, fd) in listenerFDs.enumerated() {
            let out = UnsafeMutableRawBufferPointer(start: packetScratch, count: 4096)
            guard var length = try? RTCPWriter.writeKeepAlive(into: out, ssrc: configuration.listeners[index].ssrc, cname: "b") else { continue }
            if let session = keepAliveOut[index] {
                guard let protected = try? session.protectRTCP(packetScratch, length: length, capacity: 4096) else { continue }
                length = protected
            }
            if send(fd, packetScratch, length, Int32(MSG_DONTWAIT)) == length { counts.keepAlivesSent += 1 }
        }
    }
}
#endif
