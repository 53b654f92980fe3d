import Foundation
import TestSupport

/// Work done from inside another network namespace: a thread of its own enters the namespace with
/// `setns`, runs the body and leaves again. Sockets and TUN devices belong to the namespace they were
/// made in, so a descriptor opened there keeps working from any thread afterwards.
enum NamespaceThread {
    private typealias SetNamespace = @convention(c) (Int32, Int32) -> Int32

    /// Runs `body` inside `namespace` (a name from `ip netns`) and returns its result.
    static func run<T: Sendable>(in namespace: String, _ body: @escaping @Sendable () throws -> T) throws -> T {
        nonisolated(unsafe) var result: Result<T, any Error> = .failure(TestFailure("not run"))
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            result = Result { try enter(namespace, body) }
            done.signal()
        }
        thread.start()
        done.wait()
        return try result.get()
    }

    private static func enter<T>(_ namespace: String, _ body: () throws -> T) throws -> T {
        // Through dlsym: setns may not be in Glibc's module map.
        guard let symbol = dlsym(nil, "setns") else { throw TestFailure("setns not found") }
        let setns = unsafeBitCast(symbol, to: SetNamespace.self)
        let newNetworkNamespace: Int32 = 0x4000_0000  // CLONE_NEWNET
        let home = open("/proc/thread-self/ns/net", O_RDONLY)
        let target = open("/run/netns/\(namespace)", O_RDONLY)
        defer {
            close(home)
            close(target)
        }
        guard home >= 0, target >= 0 else { throw TestFailure("cannot open the namespaces (errno \(errno))") }
        guard setns(target, newNetworkNamespace) == 0 else { throw TestFailure("setns \(namespace): errno \(errno)") }
        defer { _ = setns(home, newNetworkNamespace) }
        return try body()
    }

    /// `GET path` from `127.0.0.1:port` inside `namespace` (the admin API of a `pttd` there), with a bearer
    /// token; returns the body of a 200 answer. Blocking, bounded by `timeout` seconds per read or write.
    static func httpGet(in namespace: String, port: Int, path: String, token: String, timeout: Int = 5) throws -> String
    {
        let descriptor = try run(in: namespace) { socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0) }
        guard descriptor >= 0 else { throw TestFailure("socket: errno \(errno)") }
        defer { close(descriptor) }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw TestFailure("connect 127.0.0.1:\(port) in \(namespace): errno \(errno)") }
        let request = Array(
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\nConnection: close\r\n\r\n"
                .utf8)
        guard request.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, 0) }) == request.count else {
            throw TestFailure("send: errno \(errno)")
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else {
                if count < 0 { throw TestFailure("recv: errno \(errno)") }
                break
            }
            answer += buffer[0..<count]
        }
        let text = String(decoding: answer, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { throw TestFailure("no HTTP answer: \(text)") }
        guard text.hasPrefix("HTTP/1.1 200") else { throw TestFailure("GET \(path): \(text)") }
        return String(text[split.upperBound...])
    }
}
