#if os(Linux)
import Glibc

/// The few Linux calls the load engine needs that Swift's `Glibc` module does not import (they are GNU or
/// Linux-only declarations): epoll, timerfd, recvmmsg, sched_setaffinity. Looked up once with `dlsym`, so
/// pttbench needs no C target of its own.
enum LinuxSys {
    nonisolated(unsafe) private static let handle = dlopen(nil, RTLD_NOW)

    private static func symbol<T>(_ name: String, as type: T.Type) -> T {
        guard let pointer = dlsym(handle, name) else { fatalError("pttbench: libc has no \(name)") }
        return unsafeBitCast(pointer, to: type)
    }

    nonisolated(unsafe) static let epollCreate1 = symbol("epoll_create1", as: (@convention(c) (Int32) -> Int32).self)
    nonisolated(unsafe) static let epollCtl = symbol(
        "epoll_ctl", as: (@convention(c) (Int32, Int32, Int32, UnsafeMutableRawPointer?) -> Int32).self)
    nonisolated(unsafe) static let epollWait = symbol(
        "epoll_wait", as: (@convention(c) (Int32, UnsafeMutableRawPointer?, Int32, Int32) -> Int32).self)
    nonisolated(unsafe) static let timerfdCreate = symbol(
        "timerfd_create", as: (@convention(c) (Int32, Int32) -> Int32).self)
    nonisolated(unsafe) static let timerfdSettime = symbol(
        "timerfd_settime",
        as: (@convention(c) (Int32, Int32, UnsafePointer<itimerspec>?, UnsafeMutablePointer<itimerspec>?) -> Int32).self
    )
    nonisolated(unsafe) static let recvmmsg = symbol(
        "recvmmsg",
        as: (@convention(c) (Int32, UnsafeMutableRawPointer?, UInt32, Int32, UnsafeMutablePointer<timespec>?) -> Int32)
            .self)
    nonisolated(unsafe) static let schedSetaffinity = symbol(
        "sched_setaffinity", as: (@convention(c) (pid_t, Int, UnsafeRawPointer?) -> Int32).self)

    static let epollIn: UInt32 = 0x001
    static let epollCtlAdd: Int32 = 1
    static let timerAbsolute: Int32 = 1  // TFD_TIMER_ABSTIME
    static let timerNonBlocking: Int32 = 0o4000  // TFD_NONBLOCK = O_NONBLOCK

    /// `struct epoll_event` is packed on x86-64 (12 bytes), naturally aligned elsewhere (16 bytes).
    #if arch(x86_64)
    static let epollEventSize = 12
    static let epollDataOffset = 4
    #else
    static let epollEventSize = 16
    static let epollDataOffset = 8
    #endif

    /// Adds `fd` to an epoll set for input, tagged with `tag`.
    static func epollAdd(_ epoll: Int32, fd: Int32, tag: UInt64) -> Bool {
        var event = [UInt8](repeating: 0, count: epollEventSize)
        event.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: epollIn, toByteOffset: 0, as: UInt32.self)
            raw.storeBytes(of: tag, toByteOffset: epollDataOffset, as: UInt64.self)
        }
        return event.withUnsafeMutableBytes { epollCtl(epoll, epollCtlAdd, fd, $0.baseAddress) } == 0
    }

    /// Pins the calling process (every thread it has now; later threads inherit) to one CPU.
    static func pinProcess(toCPU cpu: Int) -> Bool {
        var mask = [UInt64](repeating: 0, count: 16)  // cpu_set_t: 1024 bits
        guard cpu >= 0, cpu < 1024 else { return false }
        mask[cpu / 64] = 1 << UInt64(cpu % 64)
        var ok = true
        let tids = threadIDs()
        for tid in tids.isEmpty ? [0] : tids {
            let result = mask.withUnsafeBytes { schedSetaffinity(tid, $0.count, $0.baseAddress) }
            if result != 0 { ok = false }
        }
        return ok
    }

    private static func threadIDs() -> [pid_t] {
        guard let dir = opendir("/proc/self/task") else { return [] }
        defer { closedir(dir) }
        var tids: [pid_t] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if let tid = pid_t(name) { tids.append(tid) }
        }
        return tids
    }

    /// Monotonic nanoseconds (the same clock for the talker and every receiver).
    @inline(__always)
    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// Wall-clock nanoseconds (CLOCK_REALTIME), the clock of the kernel's receive timestamps (SO_TIMESTAMPNS).
    @inline(__always)
    static func realtime() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    static let soTimestampNS: Int32 = 35  // SO_TIMESTAMPNS = SCM_TIMESTAMPNS

    /// The SCM_TIMESTAMPNS time (ns) in a received message's control data, if there is one.
    @inline(__always)
    static func kernelTimestamp(control: UnsafeRawPointer, length: Int) -> UInt64? {
        var offset = 0
        // struct cmsghdr on 64-bit Linux: size_t cmsg_len, int cmsg_level, int cmsg_type, then data at 16.
        while offset + 16 <= length {
            let cmsgLength = Int(control.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            guard cmsgLength >= 16 else { return nil }
            let level = control.loadUnaligned(fromByteOffset: offset + 8, as: Int32.self)
            let type = control.loadUnaligned(fromByteOffset: offset + 12, as: Int32.self)
            if level == SOL_SOCKET, type == soTimestampNS, offset + 32 <= length {
                let seconds = control.loadUnaligned(fromByteOffset: offset + 16, as: Int64.self)
                let nanoseconds = control.loadUnaligned(fromByteOffset: offset + 24, as: Int64.self)
                return UInt64(seconds) &* 1_000_000_000 &+ UInt64(nanoseconds)
            }
            offset += (cmsgLength + 7) & ~7
        }
        return nil
    }

    /// Raises the soft limit on open files to the hard limit.
    static func raiseFileLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return -1 }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        return Int(limit.rlim_cur)
    }
}

/// `struct mmsghdr`: a `msghdr` and the received length (64 bytes on 64-bit Linux).
struct MMsgHdr {
    var header = msghdr()
    var length: UInt32 = 0
}
#endif
