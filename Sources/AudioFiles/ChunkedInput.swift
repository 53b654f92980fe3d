import Foundation

/// Reads a file or pipe a chunk at a time until its end, remembering the end (a pipe is not read again
/// once it said end of file). Shared by the file readers of every format and by `ptt`.
public struct ChunkedInput {
    public let handle: FileHandle
    public let chunkSize: Int
    public private(set) var atEnd = false

    public init(handle: FileHandle, chunkSize: Int) {
        self.handle = handle
        self.chunkSize = max(1, chunkSize)
    }

    /// The next chunk, or nil at the end of the input.
    /// - Throws: the system's reason, as text, if reading fails.
    public mutating func next() throws(ChunkedInputError) -> Data? {
        if atEnd { return nil }
        let data: Data?
        do {
            data = try handle.read(upToCount: chunkSize)
        } catch {
            throw ChunkedInputError(reason: "read failed: \(error.localizedDescription)")
        }
        guard let data, !data.isEmpty else {
            atEnd = true
            return nil
        }
        return data
    }

    /// Stops reading (e.g. once a format says its data is complete).
    public mutating func finish() { atEnd = true }
}

/// A read that failed, with the system's reason.
public struct ChunkedInputError: Error, Equatable, Sendable {
    public let reason: String
}
