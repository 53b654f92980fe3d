import AudioFiles
import Foundation
import NIOCore
import NIOPosix
import PTTProtocol
import RTP
import TestSupport
import Testing

// Free UDP ports on 127.0.0.1 and waiting for an outside program to listen on one (the interop tests).

/// A free UDP port on 127.0.0.1 (bound, read back, released).
func freeUDPPort() async throws -> Int {
    let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(
        host: "127.0.0.1", port: 0
    ).get()
    let port = channel.localAddress?.port ?? 0
    try await channel.close()
    return port
}

/// A free even UDP port whose odd neighbour is free too (RTP receivers such as ffmpeg bind port + 1 for RTCP).
func freeRTPPortPair() async throws -> Int {
    let group = MultiThreadedEventLoopGroup.singleton
    for _ in 0..<50 {
        let port = 2 * Int.random(in: 10_000...30_000)
        guard let rtp = try? await DatagramBootstrap(group: group).bind(host: "0.0.0.0", port: port).get() else {
            continue
        }
        let rtcp = try? await DatagramBootstrap(group: group).bind(host: "0.0.0.0", port: port + 1).get()
        try? await rtp.close()
        guard let rtcp else { continue }
        try? await rtcp.close()
        return port
    }
    throw TestFailure("no free RTP port pair")
}

/// Waits (bounded) until something listens on UDP `port` on this machine (/proc/net/udp); gives up early
/// once `alive` says the process that should listen has exited.
func waitForUDPListener(port: Int, timeout: Duration = .seconds(10), while alive: () -> Bool = { true }) async throws {
    let hex = ":" + String(format: "%04X", port)
    let deadline = ContinuousClock.now + timeout.scaled
    while ContinuousClock.now < deadline, alive() {
        let table = ["/proc/net/udp", "/proc/net/udp6"].map(procFile).joined(separator: "\n")
        if table.split(separator: "\n").contains(where: {
            $0.split(separator: " ").dropFirst().first?.hasSuffix(hex) == true
        }) {
            return
        }
        try await Task.sleep(for: .milliseconds(20))
    }
    throw TestFailure("nothing listens on UDP port \(port)")
}

/// The whole text of a /proc file. They report size 0, and String(contentsOfFile:) then reads one page only: with
/// many sockets open (the whole suite in parallel) the line looked for was past it. Read to the end.
func procFile(_ path: String) -> String {
    guard let handle = FileHandle(forReadingAtPath: path) else { return "" }
    defer { try? handle.close() }
    return (try? handle.readToEnd()).flatMap { $0 }.map { String(decoding: $0, as: UTF8.self) } ?? ""
}
