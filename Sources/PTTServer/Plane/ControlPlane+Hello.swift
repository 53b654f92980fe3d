import PTTCore
import PTTProtocol

extension ControlPlane {
    /// `hello`: checks the version, device and credentials, makes the session its device's current one for its
    /// role (replacing an older one), and answers `welcome` with the device's memberships.
    func handleHello(_ hello: Hello, from session: ControlSession) {
        func refuse(_ code: ErrorCode, _ message: String, reason: HelloRefusal) {
            context.metrics.control.helloRefused(reason)
            logger.notice(
                "hello refused",
                metadata: ["code": "\(code.rawValue)", "user": "\(hello.user)", "remote": "\(session.remoteAddress)"])
            session.close(with: ErrorFrame(code: code, message: message))
        }
        guard hello.version == ProtocolVersion.current else {
            return refuse(
                .unsupportedVersion,
                "protocol version \(hello.version) is not supported; this server speaks \(ProtocolVersion.current)",
                reason: .unsupportedVersion)
        }
        if let elsewhere = cluster?.sendsMembersElsewhere {
            return refuse(.unavailable, elsewhere, reason: .unavailable)
        }
        guard (1...128).contains(hello.device.count) else {
            return refuse(.badRequest, "device must be 1 to 128 characters", reason: .badRequest)
        }
        guard let user = directory.users[hello.user],
            SecretHasher.verify(secret: hello.secret, salt: user.salt, expected: user.secretHash)
                || signInLinks.verify(user: user.name, secret: hello.secret)
        else {
            return refuse(.badCredentials, "unknown user or wrong secret", reason: .badCredentials)
        }
        let device = SessionTable.DeviceKey(user: user.name, device: hello.device)
        let key = SessionTable.SessionKey(device: device, role: hello.role)
        if let stale = sessions.authenticate(session, as: key, at: context.wallClock.now()) {
            context.metrics.control.sessionsReplaced.increment()
            logger.info(
                "replacing stale session",
                metadata: ["user": "\(user.name)", "device": "\(hello.device)", "role": "\(hello.role.rawValue)"])
            stale.close(
                with: ErrorFrame(
                    code: .replaced, message: "a newer connection for this device and role replaced this one"))
        }
        logger.info(
            "session started",
            metadata: [
                "user": "\(user.name)", "device": "\(hello.device)", "role": "\(hello.role.rawValue)",
                "remote": "\(session.remoteAddress)", "client": "\(hello.client ?? "-")",
            ])
        let mine = directory.memberships(user: user.name, device: hello.device)
        let joined = mine.map { memberships.joined(for: $0, re: nil, listMembers: false, in: directory) }
        session.send(
            .welcome(
                Welcome(
                    version: ProtocolVersion.current, server: "pttd", session: "\(session.id)",
                    heartbeatIntervalMs: Int(configuration.heartbeatInterval.milliseconds), memberships: joined)))
        session.authenticated()
        // An app is told of a broadcast holding one of its channels, as if it had been connected when it began.
        if hello.role == .app {
            for membership in mine {
                if let event = broadcasts.startedEvent(for: membership.id, in: membership.channel) {
                    session.send(event)
                }
            }
        }
        announcements.deliverStored(to: session, device: device, role: hello.role)
    }
}
