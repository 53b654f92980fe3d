#if os(Linux)
import NIOCore
import NIOPosix
import NIOSSL
import PTTProtocol
import Synchronization

/// How join-bench members reach pttd: plain TCP, or TLS with pttd's certificate pinned to the fingerprint in
/// runtime.json (the certificate must be exactly that one; nothing is trusted on first use).
struct JoinMemberSecurity: Sendable {
    var tls: NIOSSLContext?
    var fingerprint: String?

    static let plain = JoinMemberSecurity(tls: nil, fingerprint: nil)

    /// TLS 1.2 or newer, no host name check (pttd's certificate is self-signed), as `PTTClient.ControlClient`.
    static func pinned(to fingerprint: String) throws -> JoinMemberSecurity {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .noHostnameVerification
        configuration.minimumTLSVersion = .tlsv12
        return JoinMemberSecurity(tls: try NIOSSLContext(configuration: configuration), fingerprint: fingerprint)
    }
}

/// The fingerprint a TLS handshake saw, for the check after `welcome`.
final class SeenCertificate: Sendable {
    let fingerprint = Mutex<String?>(nil)
}

/// One member of the join benchmark: a control connection that is no full `ControlClient`. It writes pre-encoded
/// `hello` and `join` frames, decodes only the frames it acts on and counts `member-joined` by their bytes
/// (`InboundFrame`), so a thousand members cost pttbench little next to pttd.
final class JoinMember: Sendable {
    let channel: Channel
    private let handler: NIOLoopBound<JoinMemberHandler>

    private init(channel: Channel, handler: NIOLoopBound<JoinMemberHandler>) {
        self.channel = channel
        self.handler = handler
    }

    /// Connects (TCP, then the TLS handshake), writes `hello` and waits for `welcome`.
    static func connect(
        to address: SocketAddress, security: JoinMemberSecurity, hello: ByteBuffer,
        tally: MemberJoinedTally, timeout: TimeAmount
    ) async throws -> JoinMember {
        let eventLoop = tally.eventLoop
        let welcome = eventLoop.makePromise(of: Void.self)
        let seen = SeenCertificate()
        let channel: Channel
        do {
            channel = try await ClientBootstrap(group: eventLoop)
                .connectTimeout(timeout)
                .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let sync = channel.pipeline.syncOperations
                        if let context = security.tls {
                            let expected = security.fingerprint
                            try sync.addHandler(
                                NIOSSLClientHandler(context: context, serverHostname: nil) { certificates, promise in
                                    let actual = (try? certificates.first?.toDERBytes()).map(Fingerprint.sha256)
                                    seen.fingerprint.withLock { $0 = actual }
                                    promise.succeed(
                                        actual != nil && actual == expected ? .certificateVerified : .failed)
                                })
                        }
                        try sync.addHandler(ByteToMessageHandler(ControlFrameSplitter()))
                        try sync.addHandler(JoinMemberHandler(tally: tally, welcome: welcome))
                    }
                }
                .connect(to: address).get()
        } catch {
            welcome.fail(error)
            throw BenchError("connect to \(address): \(error)")
        }
        let handler = try await eventLoop.submit {
            let handler = try channel.pipeline.syncOperations.handler(type: JoinMemberHandler.self)
            handler.sendHello(hello, timeout: timeout)
            return NIOLoopBound(handler, eventLoop: eventLoop)
        }.get()
        do {
            try await welcome.futureResult.get()
        } catch {
            try? await channel.close()
            if security.tls != nil, let actual = seen.fingerprint.withLock({ $0 }), actual != security.fingerprint {
                throw BenchError(
                    "TLS: pttd's certificate \(actual) is not the one in runtime.json (\(security.fingerprint ?? "-"))")
            }
            throw error
        }
        if security.tls != nil, seen.fingerprint.withLock({ $0 }) != security.fingerprint {
            try? await channel.close()
            throw BenchError("TLS: the server's certificate was not the one pinned from runtime.json")
        }
        return JoinMember(channel: channel, handler: handler)
    }

    /// Writes `frame` (a `join` with id `re`) and succeeds when its `joined` is read. With `settling`, also waits
    /// until the tally has counted that many `member-joined` (the wait starts before the write, so no event is
    /// missed, and gives up `settleTimeout` after `joined`); `settled` is then the later of the two times.
    func join(
        _ frame: ByteBuffer, re: Int, timeout: TimeAmount, settling target: Int? = nil, tally: MemberJoinedTally? = nil,
        settleTimeout: TimeAmount = .seconds(2)
    ) -> EventLoopFuture<JoinTimes> {
        channel.eventLoop.flatSubmit { [handler] in
            let settled = target.flatMap { target in
                tally.map { $0.wait(until: target, timeout: timeout + settleTimeout) }
            }
            let joined = handler.value.sendJoin(frame, re: re, timeout: timeout)
            guard let settled, let tally else { return joined }
            return joined.flatMapErrorThrowing { error in
                tally.cancelWait("the join failed")
                throw error
            }.flatMap { times in
                tally.shortenWait(to: settleTimeout)
                return settled.map { Optional(max($0, times.joined)) }.recover { _ in nil }.map { settledAt in
                    JoinTimes(
                        sent: times.sent, joined: times.joined, settled: settledAt, memberEvents: times.memberEvents)
                }
            }
        }
    }

    func close() async {
        try? await channel.close()
    }
}
#endif
