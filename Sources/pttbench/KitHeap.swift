#if os(Linux)
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// This process's memory: glibc's heap in use (`mallinfo2()`, which glibc sums over every arena) and the resident
/// set.
struct KitHeap {
    /// Bytes in chunks handed out by malloc and not freed (`uordblks`).
    var inUse: Int
    /// Bytes in chunks malloc took straight from mmap (`hblkhd`: large allocations), also in use.
    var mmapped: Int
    /// Resident set size in bytes (`VmRSS` of /proc/self/status).
    var resident: Int

    static func sample() -> KitHeap {
        let (inUse, mmapped) = mallinfo2Figures()
        return KitHeap(
            inUse: inUse, mmapped: mmapped, resident: (ProcStats.memoryKB(pid: getpid(), field: "VmRSS") ?? 0) * 1024)
    }

    /// `bytes` in MB (10⁶), signed.
    static func megabytes(_ bytes: Int) -> String { String(format: "%+.3f", Double(bytes) / 1e6) }

    #if canImport(Glibc)
    /// `mallinfo2`, looked up with `dlsym`: Swift's `Glibc` module does not import `<malloc.h>`.
    ///
    /// Its result, `struct mallinfo2`, is ten `size_t` fields (80 bytes), which C returns through a pointer the
    /// caller passes (x86-64 and AArch64 alike, for any struct over 16 bytes). Swift cannot name that struct, so the
    /// function is typed as returning `struct rusage` (144 bytes, returned the same way): the callee fills the
    /// first 80 bytes, read back here as `size_t`s. Fields in order: arena, ordblks, smblks, hblks, hblkhd,
    /// usmblks, fsmblks, uordblks, fordblks, keepcost.
    private static let mallinfo2: (@convention(c) () -> rusage)? = {
        guard let pointer = dlsym(dlopen(nil, RTLD_NOW), "mallinfo2") else { return nil }
        return unsafeBitCast(pointer, to: (@convention(c) () -> rusage).self)
    }()

    /// (uordblks, hblkhd), or zeros if this libc has no `mallinfo2` (glibc before 2.33).
    private static func mallinfo2Figures() -> (Int, Int) {
        guard let mallinfo2 else { return (0, 0) }
        precondition(MemoryLayout<rusage>.size >= 10 * MemoryLayout<Int>.size)
        var info = mallinfo2()
        return withUnsafeBytes(of: &info) { raw in
            (raw.load(fromByteOffset: 7 * 8, as: Int.self), raw.load(fromByteOffset: 4 * 8, as: Int.self))
        }
    }
    #else
    private static func mallinfo2Figures() -> (Int, Int) { (0, 0) }
    #endif
}
#endif
