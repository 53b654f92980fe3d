#if os(Linux)
import Foundation
import Glibc

/// Readings from /proc: a process's CPU time and memory, a core's busy time, per-socket UDP drops.
enum ProcStats {
    static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    static func read(_ path: String) -> String? {
        // /proc files report size 0: read in chunks.
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.readToEnd() else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// utime + stime of a process, in seconds.
    static func processCPUSeconds(pid: Int32) -> Double? {
        guard let text = read("/proc/\(pid)/stat"), let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (state); utime is field 14, stime field 15.
        guard fields.count > 13, let utime = Double(fields[11]), let stime = Double(fields[12]) else { return nil }
        return (utime + stime) / ticksPerSecond
    }

    /// utime and stime of a process, in seconds (10 ms granularity on most kernels).
    static func processCPUTimes(pid: Int32) -> (user: Double, system: Double)? {
        guard let text = read("/proc/\(pid)/stat"), let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let utime = Double(fields[11]), let stime = Double(fields[12]) else { return nil }
        return (utime / ticksPerSecond, stime / ticksPerSecond)
    }

    /// CPU time of every thread of a process from the scheduler (`/proc/PID/task/*/schedstat`, first field, ns):
    /// user + system with nanosecond resolution, for costs far below /proc/PID/stat's 10 ms ticks.
    /// Threads that ended earlier are not counted, so only differences over a short span are meaningful.
    static func schedulerCPUSeconds(pid: Int32) -> Double? {
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return nil }
        var total: UInt64 = 0
        for task in tasks {
            guard let text = read("/proc/\(pid)/task/\(task)/schedstat"),
                let first = text.split(separator: " ").first, let nanoseconds = UInt64(first)
            else { continue }
            total += nanoseconds
        }
        return Double(total) / 1e9
    }

    /// A `Vm…` line of /proc/PID/status, in kB.
    static func memoryKB(pid: Int32, field: String) -> Int? {
        guard let text = read("/proc/\(pid)/status") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.dropFirst(field.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
        }
        return nil
    }

    static func threadCount(pid: Int32) -> Int? {
        guard let text = read("/proc/\(pid)/status") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("Threads:") {
            return Int(line.dropFirst(8).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return nil
    }

    /// Busy and total seconds of one core from /proc/stat (busy = everything but idle and iowait).
    static func coreTimes(cpu: Int) -> (busy: Double, total: Double)? {
        guard let text = read("/proc/stat") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("cpu\(cpu) ") {
            let values = line.split(separator: " ").dropFirst().compactMap { Double($0) }
            guard values.count >= 5 else { return nil }
            // user nice system idle iowait irq softirq steal (guest times are already in user)
            let total = values.prefix(8).reduce(0, +)
            let idle = values[3] + values[4]
            return ((total - idle) / ticksPerSecond, total / ticksPerSecond)
        }
        return nil
    }

    /// This process's own CPU time (user + system), in seconds.
    static func ownCPUSeconds() -> Double {
        let times = ownCPUTimes()
        return times.user + times.system
    }

    /// This process's own user and system CPU time (getrusage RUSAGE_SELF, µs resolution), in seconds.
    static func ownCPUTimes() -> (user: Double, system: Double) {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return (
            Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6,
            Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        )
    }

    /// Datagrams the kernel dropped per local UDP port (the `drops` column of /proc/net/udp), for the ports asked.
    static func udpDrops(ports: Set<Int>) -> [Int: Int] {
        guard let text = read("/proc/net/udp") else { return [:] }
        var drops: [Int: Int] = [:]
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count >= 13 else { continue }
            let local = fields[1].split(separator: ":")
            guard local.count == 2, let port = Int(local[1], radix: 16), ports.contains(port),
                let count = Int(fields[fields.count - 1])
            else { continue }
            drops[port, default: 0] += count
        }
        return drops
    }
}

/// A snapshot of the CPU counters that a run's figures are differences of.
struct CPUSnapshot {
    var time: UInt64
    var serverCPU: Double
    /// pttd's utime alone (user space: the relay's own code, Swift runtime, libraries).
    var serverUserCPU: Double
    var serverCore: (busy: Double, total: Double)
    var benchCore: (busy: Double, total: Double)
    var benchCPU: Double

    static func take(serverPID: Int32, serverCore: Int, benchCore: Int) -> CPUSnapshot {
        let server = ProcStats.processCPUTimes(pid: serverPID) ?? (0, 0)
        return CPUSnapshot(
            time: LinuxSys.now(),
            serverCPU: server.user + server.system,
            serverUserCPU: server.user,
            serverCore: ProcStats.coreTimes(cpu: serverCore) ?? (0, 0),
            benchCore: ProcStats.coreTimes(cpu: benchCore) ?? (0, 0),
            benchCPU: ProcStats.ownCPUSeconds())
    }
}
#endif
