import AudioFiles
import Foundation
import Testing

/// Inputs `make fuzz` found (kept in fixtures/fuzz/regressions/TARGET/), and the smallest cases
/// behind them.
@Suite("Fuzz regressions (Media)")
struct MediaFuzzRegressionTests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fixtures")

    static func regression(_ target: String, _ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: fixtures.appendingPathComponent("fuzz/regressions/\(target)/\(name)")))
    }

    /// Reads `bytes` fed in `chunk`-byte pieces, taking packets between feeds as a file reader does.
    static func read(_ bytes: [UInt8], chunk: Int) -> (packets: [[UInt8]], error: OggOpusError?, skipped: Int) {
        var reader = OggOpusReader()
        var packets: [[UInt8]] = []
        var offset = 0
        do {
            repeat {
                let end = min(offset + chunk, bytes.count)
                reader.feed(bytes[offset..<end])
                offset = end
                while let packet = try reader.nextPacket() { packets.append(packet.data) }
            } while offset < bytes.count
            try reader.finishInput()
            return (packets, nil, reader.skippedBytes)
        } catch {
            return (packets, error, reader.skippedBytes)
        }
    }

    @Test(
        "A junk tail after the last page reads the same whole and in chunks (found by fuzz-ogg-opus)",
        arguments: ["junk-tail-whole-vs-chunked-1", "junk-tail-whole-vs-chunked-2"])
    func junkTailFromFuzzer(name: String) throws {
        let bytes = try Self.regression("ogg-opus", name)
        let whole = Self.read(bytes, chunk: bytes.count)
        for chunk in [1, 7, 4_096] {
            let chunked = Self.read(bytes, chunk: chunk)
            #expect(chunked.packets == whole.packets, "chunk \(chunk)")
            #expect(chunked.error == whole.error, "chunk \(chunk)")
            if whole.error == nil { #expect(chunked.skipped == whole.skipped, "chunk \(chunk)") }
        }
    }

    @Test("Junk shorter than a page header at the end is skipped junk, not a truncated page, for any chunking")
    func shortJunkTail() throws {
        let stream = [UInt8](try Data(contentsOf: Self.fixtures.appendingPathComponent("burst-20ms-mono.opus")))
        let clean = Self.read(stream, chunk: stream.count)
        #expect(clean.error == nil)
        // 40 bytes without an "O": libogg skips them only while at least 27 are buffered, so fed in
        // 7-byte pieces 12 were left over at the end and were reported as a truncated page.
        let junk = [UInt8](repeating: 0x00, count: 40)
        for chunk in [1, 7, 13, 4_096, stream.count + junk.count] {
            let result = Self.read(stream + junk, chunk: chunk)
            #expect(result.error == nil, "chunk \(chunk)")
            #expect(result.packets == clean.packets, "chunk \(chunk)")
            #expect(result.skipped == clean.skipped + junk.count, "chunk \(chunk)")
        }
    }

    @Test("A cut-off capture pattern at the end is still a truncated page")
    func cutCaptureTail() throws {
        let stream = [UInt8](try Data(contentsOf: Self.fixtures.appendingPathComponent("burst-20ms-mono.opus")))
        for tail in ["O", "Og", "Ogg", "OggS", "xxOgg", "OggS\u{0}\u{0}"] {
            let result = Self.read(stream + Array(tail.utf8), chunk: 7)
            guard case .truncated? = result.error else {
                Issue.record(
                    "tail \(tail.debugDescription): expected .truncated, got \(String(describing: result.error))")
                continue
            }
        }
    }
}
