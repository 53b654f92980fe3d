import NIOCore
import NIOPosix
import PTTProtocol

/// One control connection kept alive: connects, watches the server's heartbeats, notices a dead link, and connects
/// again with back-off, until closed. ``PTTClient`` (role `app`) and ``PushProviderSession`` (role `push-provider`)
/// each own one.
///
/// The first connection is made by ``start()``, which throws what went wrong (so that wrong credentials or a
/// wrong address are reported at once); later ones are made in the background, as often as it takes, except after a
/// refusal that retrying cannot cure (wrong credentials, a changed certificate): the link then closes for good.
actor ControlLink {
    /// What the owner is told, in order, from the link's task.
    struct Handlers: Sendable {
        /// A connection is up, past `welcome`; the link becomes ready when this returns.
        var attached: @Sendable (ControlClient) async -> Void
        /// A frame arrived (heartbeats included).
        var received: @Sendable (ControlMessage) async -> Void
        /// The state changed.
        var stateChanged: @Sendable (ConnectionState) -> Void
    }

    let endpoint: ServerEndpoint
    let hello: Hello
    let security: ControlSecurity
    let connectTimeout: Duration
    let readyTimeout: Duration
    let group: EventLoopGroup
    private let handlers: Handlers

    private(set) var state: ConnectionState = .connecting
    private(set) var connection: ControlClient?
    private var backoff: ReconnectBackoff
    /// The reconnection attempts since the last connection: how long the next may take.
    private var attempts = ReconnectAttempts()
    private var watch: HeartbeatWatch?
    /// A client heartbeat sent to check the link after a network change, and when its answer is due.
    private var probe: (seq: UInt64, deadline: UInt64)?
    private var probeSeq: UInt64 = 0
    private var readyWaiters: [Int: CheckedContinuation<ControlClient, Error>] = [:]
    private var nextWaiter = 0
    /// The back-off wait in progress, woken early by ``networkPathChanged()``.
    private var retryWait: (generation: Int, continuation: CheckedContinuation<Void, Never>)?
    private var retryGeneration = 0
    private var supervisor: Task<Void, Never>?
    /// Why the server ended the session in a way that reconnecting cannot cure (`replaced`: a newer connection of
    /// this device and role took over; `bad-credentials`: the user was removed).
    private var finalRefusal: String?
    /// Connections made after the first.
    private(set) var reconnects = 0
    /// Connections given up because the server's heartbeats stopped.
    private(set) var heartbeatLosses = 0
    /// How long the steps of the latest connection took.
    private(set) var lastTimings: ConnectTimings?
    /// The server's certificate fingerprint, when a connection pinned it for the first time (trust on first use).
    private(set) var pinnedFingerprint: String?

    init(
        endpoint: ServerEndpoint, hello: Hello, security: ControlSecurity, connectTimeout: Duration,
        readyTimeout: Duration, backoff: ReconnectBackoff, group: EventLoopGroup, handlers: Handlers
    ) {
        self.endpoint = endpoint
        self.hello = hello
        self.security = security
        self.connectTimeout = connectTimeout
        self.readyTimeout = readyTimeout
        self.backoff = backoff
        self.group = group
        self.handlers = handlers
    }

    /// Makes the first connection (throwing its error), then keeps the link up in the background.
    func start() async throws {
        let first: ControlClient
        do {
            first = try await connect()
        } catch {
            setState(.closed(reason: "\(error)"))
            throw error
        }
        supervisor = Task { await self.supervise(first) }
        _ = try await readyConnection()
    }

    /// Closes the link for good.
    func close(reason: String = "closed by the app") async {
        setState(.closed(reason: reason))
        supervisor?.cancel()
        wakeRetry()
        let connection = connection
        self.connection = nil
        await connection?.close()
        failWaiters(PTTClientError.closed(reason))
    }

    /// The network path changed (an app's `NWPathMonitor` said so): while waiting to reconnect, try at once; while
    /// connected, check the link with a heartbeat of our own and reconnect if no answer comes within a second.
    func networkPathChanged() {
        switch state {
        case .closed: return
        case .connecting:
            backoff.reset()
            wakeRetry()
        case .ready:
            guard let connection, probe == nil else { return }
            probeSeq &+= 1
            probe = (probeSeq, Self.now() + 1_000_000_000)
            connection.send(.heartbeat(Heartbeat(seq: probeSeq)))
        }
    }

    /// The connection once the link is ready, waiting for it (at most the ready timeout) while connecting.
    func readyConnection() async throws -> ControlClient {
        if case .closed(let reason) = state { throw PTTClientError.closed(reason) }
        if state == .ready, let connection { return connection }
        let id = nextWaiter
        nextWaiter += 1
        let timeout = readyTimeout
        return try await withCheckedThrowingContinuation { continuation in
            readyWaiters[id] = continuation
            Task { [weak self] in
                try? await Task.sleep(for: timeout)
                await self?.expireWaiter(id)
            }
        }
    }

    /// Sends a request on the ready connection and returns its answer (an `error` answer throws).
    func request(_ message: ControlMessage, timeout: Duration) async throws -> ControlMessage {
        let connection = try await readyConnection()
        do {
            return try await connection.request(message, timeout: timeout)
        } catch let error as ControlClientError {
            throw PTTClientError(error)
        }
    }

    /// Whether the server's heartbeats are coming: what a Local Push extension checks from `handleTimerEvent()`.
    /// A link overdue by then is dropped (and reconnected).
    func checkHealth() -> Bool {
        guard state == .ready, let watch else { return false }
        if watch.isOverdue(at: Self.now()) {
            connection?.abandon()
            return false
        }
        return true
    }

    // MARK: - The background task

    private func supervise(_ first: ControlClient) async {
        var next: ControlClient? = first
        while !Task.isCancelled {
            if let connection = next {
                await serve(connection)
                next = nil
            }
            if case .closed = state { return }
            if let finalRefusal {
                setState(.closed(reason: finalRefusal))
                failWaiters(PTTClientError.closed(finalRefusal))
                return
            }
            setState(.connecting)
            if !attempts.retryAtOnce {
                let delay = backoff.nextDelay(unit: Double.random(in: 0..<1))
                await waitBeforeRetry(delay)
            }
            if Task.isCancelled { return }
            if case .closed = state { return }
            let timeout = attempts.timeout(connectTimeout: connectTimeout, lastTCP: lastTimings?.tcp)
            let started = ContinuousClock.now
            do {
                next = try await connect(timeout: timeout)
                reconnects += 1
                attempts.connected()
            } catch  where ReconnectAttempts.cannotHelp(error) {
                setState(.closed(reason: "\(error)"))
                failWaiters(PTTClientError.closed("\(error)"))
                return
            } catch ControlClientError.connectFailed where ContinuousClock.now - started >= timeout {
                attempts.unansweredInTime()  // the link is dead, or very slow
            } catch ControlClientError.timedOut {
                attempts.handshakeTooSlow()
            } catch {
                attempts.failed()
            }
        }
    }

    /// Attaches `connection`, then reads it until it ends or its heartbeats stop.
    private func serve(_ connection: ControlClient) async {
        self.connection = connection
        lastTimings = connection.timings
        if connection.pinnedCertificate { pinnedFingerprint = connection.serverFingerprint }
        watch = HeartbeatWatch(intervalMs: connection.welcome.heartbeatIntervalMs, now: Self.now())
        probe = nil
        await handlers.attached(connection)
        guard self.connection === connection else { return }
        backoff.reset()
        setState(.ready)
        let waiters = readyWaiters
        readyWaiters.removeAll()
        for waiter in waiters.values { waiter.resume(returning: connection) }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await message in connection.messages { await self.received(message) }
            }
            group.addTask { await self.watchHeartbeats(of: connection) }
            await group.next()
            group.cancelAll()
        }
        connection.abandon()
        if self.connection === connection { self.connection = nil }
    }

    private func received(_ message: ControlMessage) async {
        watch?.heard(at: Self.now())
        if case .heartbeatAck(let ack) = message, ack.seq == probe?.seq { probe = nil }
        if case .error(let frame) = message, frame.re == nil, [.replaced, .badCredentials].contains(frame.code) {
            finalRefusal = "\(frame.message) (\(frame.code.rawValue))"
        }
        await handlers.received(message)
    }

    /// Returns when the link is dead: nothing heard for 1.5 heartbeat intervals, or no answer to a probe.
    private func watchHeartbeats(of connection: ControlClient) async {
        while !Task.isCancelled, self.connection === connection, let watch {
            try? await Task.sleep(for: .nanoseconds(watch.checkEvery))
            let now = Self.now()
            if watch.isOverdue(at: now) || (probe.map { now > $0.deadline } ?? false) {
                heartbeatLosses += 1
                return
            }
        }
    }

    // MARK: - Helpers

    private func connect(timeout: Duration? = nil) async throws -> ControlClient {
        try await ControlClient.connect(
            to: endpoint, hello: hello, security: security, timeout: timeout ?? connectTimeout, group: group)
    }

    private func waitBeforeRetry(_ delay: Duration) async {
        retryGeneration += 1
        let generation = retryGeneration
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            retryWait = (generation, continuation)
            Task { [weak self] in
                try? await Task.sleep(for: delay)
                await self?.wakeRetry(generation: generation)
            }
        }
    }

    private func wakeRetry(generation: Int? = nil) {
        guard let wait = retryWait, generation == nil || generation == wait.generation else { return }
        retryWait = nil
        wait.continuation.resume()
    }

    private func setState(_ new: ConnectionState) {
        guard new != state else { return }
        if case .closed = state { return }
        state = new
        handlers.stateChanged(new)
    }

    private func expireWaiter(_ id: Int) {
        readyWaiters.removeValue(forKey: id)?.resume(throwing: PTTClientError.notConnected(state: state))
    }

    private func failWaiters(_ error: Error) {
        let waiters = readyWaiters
        readyWaiters.removeAll()
        for waiter in waiters.values { waiter.resume(throwing: error) }
    }

    static func now() -> UInt64 { NIODeadline.now().uptimeNanoseconds }
}
