// srtp-bench: what SRTPSession costs per 132-byte RTP packet, with 1 and 1000 sessions, for each
// profile; plus session creation time and heap per session. Then the same packet through
// PortableSRTPSession (swift-crypto, `[UInt8]` API), the kit's SRTP. See Docs/SRTP.md.
//
//   srtp-bench [packets] [--libcrypto-only]  (default 1,000,000 per measurement; a tenth for PortableSRTP)
//   srtp-bench --sessions K [gcm]         makes K outbound + K inbound sessions and exits holding them
//
// Under valgrind, run it with N and 2N packets and --libcrypto-only: the "total heap usage" counts are
// equal when SRTPSession's per-packet path allocates nothing (PortableSRTPSession allocates per packet). With --sessions K and 0, "in use at exit" differs by the heap
// that 2K sessions keep.
import Glibc
import PortableSRTP
import SRTP

let arguments = CommandLine.arguments
let packets = arguments.count > 1 ? Int(arguments[1]) ?? 1_000_000 : 1_000_000
let packetLength = 132
let headerLength = 12

func now() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

/// `count` random keys for `profile`.
func makeKeys(_ count: Int, _ profile: SRTPProfile) -> [SRTPKey] {
    (0..<count).map { _ in SRTPKey.random(for: profile) }
}

/// Outbound and inbound sessions, one key each, SSRC = session number.
func makeSessions(_ keys: [SRTPKey], _ profile: SRTPProfile) -> (out: [SRTPSession], in: [SRTPSession]) {
    var outbound: [SRTPSession] = []
    var inbound: [SRTPSession] = []
    outbound.reserveCapacity(keys.count)
    inbound.reserveCapacity(keys.count)
    for (index, key) in keys.enumerated() {
        outbound.append(
            try! SRTPSession(direction: .outbound, key: key, ssrc: .specific(UInt32(index)), profile: profile))
        inbound.append(
            try! SRTPSession(direction: .inbound, key: key, ssrc: .specific(UInt32(index)), profile: profile))
    }
    return (outbound, inbound)
}

/// Writes an RTP header for `ssrc` with sequence number `sequence` at `buffer`.
@inline(__always)
func writeHeader(_ buffer: UnsafeMutableRawPointer, sequence: UInt16, ssrc: UInt32) {
    buffer.storeBytes(of: 0x80, as: UInt8.self)
    buffer.storeBytes(of: 111, toByteOffset: 1, as: UInt8.self)
    buffer.storeBytes(of: sequence.bigEndian, toByteOffset: 2, as: UInt16.self)
    buffer.storeBytes(of: (UInt32(sequence) &* 960).bigEndian, toByteOffset: 4, as: UInt32.self)
    buffer.storeBytes(of: ssrc.bigEndian, toByteOffset: 8, as: UInt32.self)
}

/// Protects (and, if `unprotect`, unprotects) `packets` packets round-robin over the sessions;
/// returns nanoseconds per packet.
func run(
    _ sessions: (out: [SRTPSession], in: [SRTPSession]), sequenceBase: Int, unprotect: Bool,
    buffer: UnsafeMutableRawPointer
) -> Double {
    let count = sessions.out.count
    let start = now()
    for packet in 0..<packets {
        let session = packet % count
        let sequence = UInt16(truncatingIfNeeded: sequenceBase + packet / count)
        writeHeader(buffer, sequence: sequence, ssrc: UInt32(session))
        let length = try! sessions.out[session].protect(buffer, length: packetLength, capacity: 256)
        if unprotect { _ = try! sessions.in[session].unprotect(buffer, length: length) }
    }
    return Double(now() - start) / Double(packets)
}

if arguments.count > 2, arguments[1] == "--sessions", let count = Int(arguments[2]) {
    let profile: SRTPProfile = arguments.count > 3 && arguments[3] == "gcm" ? .aeadAES128GCM : .aesCM128HMACSHA1_80
    let sessions = makeSessions(makeKeys(count, profile), profile)
    print("srtp-bench: holding \(sessions.out.count + sessions.in.count) sessions")
    exit(0)
}

let buffer = UnsafeMutableRawPointer.allocate(byteCount: 256, alignment: 16)
buffer.initializeMemory(as: UInt8.self, repeating: 0x5A, count: 256)
print("srtp-bench: \(packets) packets of \(packetLength) bytes per measurement")
for profile in SRTPProfile.allCases { _ = makeSessions(makeKeys(1, profile), profile) }  // one-time OpenSSL setup
for profile in SRTPProfile.allCases {
    for sessionCount in [1, 1000] {
        let keys = makeKeys(sessionCount, profile)
        let created = now()
        let sessions = makeSessions(keys, profile)
        let creation = Double(now() - created) / Double(2 * sessionCount)
        // Warm up; protect alone (on other outbound sessions, so the measured pairs stay in step);
        // then protect + unprotect. The difference is the cost of unprotect.
        let perRound = max(packets / sessionCount, 1)
        let protectOnly = makeSessions(makeKeys(sessionCount, profile), profile)
        _ = run(sessions, sequenceBase: 0, unprotect: true, buffer: buffer)
        let protect = run(protectOnly, sequenceBase: 0, unprotect: false, buffer: buffer)
        let both = run(sessions, sequenceBase: perRound, unprotect: true, buffer: buffer)
        print(
            "\(profile.name) sessions=\(sessionCount): protect \(Int(protect.rounded())) ns, "
                + "unprotect \(Int((both - protect).rounded())) ns, create \(Int(creation.rounded())) ns/session")
    }
}
buffer.deallocate()

/// PortableSRTPSession: protect `count` packets (one session, SSRC 1), then unprotect them all; ns per
/// packet for each, and per session created.
func runPortable(_ profile: SRTPProfile, count: Int) -> (protect: Double, unprotect: Double, create: Double) {
    let key = SRTPKey.random(for: profile)
    let created = now()
    var made: [PortableSRTPSession] = []
    for _ in 0..<1_000 {
        made.append(try! PortableSRTPSession(direction: .outbound, key: key, ssrc: .specific(1), profile: profile))
    }
    let creation = Double(now() - created) / Double(made.count)
    let sender = try! PortableSRTPSession(direction: .outbound, key: key, ssrc: .specific(1), profile: profile)
    let receiver = try! PortableSRTPSession(direction: .inbound, key: key, ssrc: .specific(1), profile: profile)
    var plain = [UInt8](repeating: 0x5A, count: packetLength)
    var protected: [[UInt8]] = []
    protected.reserveCapacity(count)
    let start = now()
    for packet in 0..<count {
        plain.withUnsafeMutableBytes {
            writeHeader($0.baseAddress!, sequence: UInt16(truncatingIfNeeded: packet), ssrc: 1)
        }
        protected.append(try! sender.protect(plain))
    }
    let middle = now()
    for packet in protected { _ = try! receiver.unprotect(packet) }
    let end = now()
    return (Double(middle - start) / Double(count), Double(end - middle) / Double(count), creation)
}

guard !arguments.contains("--libcrypto-only") else { exit(0) }
let portablePackets = max(packets / 10, 1)
print("srtp-bench: PortableSRTPSession (swift-crypto, [UInt8] API), \(portablePackets) packets per measurement")
for profile in SRTPProfile.allCases {
    _ = runPortable(profile, count: max(portablePackets / 10, 1))  // warm up
    let cost = runPortable(profile, count: portablePackets)
    print(
        "\(profile.name) portable: protect \(Int(cost.protect.rounded())) ns, "
            + "unprotect \(Int(cost.unprotect.rounded())) ns, create \(Int(cost.create.rounded())) ns/session")
}
