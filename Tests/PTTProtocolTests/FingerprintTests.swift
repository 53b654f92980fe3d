import Foundation
import NIOCore
import NIOEmbedded
import PTTProtocol
import Testing

@Suite("Fingerprints")
struct FingerprintTests {
    // Expected values computed at authoring time with coreutils, e.g.
    //   printf 'abc' | sha256sum | cut -c1-64 | tr a-f A-F | sed 's/../&:/g; s/:$//'
    // and for bytes 0...255: python3 -c "import sys; sys.stdout.buffer.write(bytes(range(256)))" | sha256sum ...

    @Test func sha256OfABC() {
        #expect(
            Fingerprint.sha256(Array("abc".utf8))
                == "BA:78:16:BF:8F:01:CF:EA:41:41:40:DE:5D:AE:22:23:B0:03:61:A3:96:17:7A:9C:B4:10:FF:61:F2:00:15:AD")
    }

    @Test func sha256OfEveryByteValue() {
        #expect(
            Fingerprint.sha256((0...255).map { UInt8($0) })
                == "40:AF:F2:E9:D2:D8:92:2E:47:AF:D4:64:8E:69:67:49:71:58:78:5F:BD:1D:A8:70:E7:11:02:66:BF:94:48:80")
    }

    @Test func sha256OfNothing() {
        #expect(
            Fingerprint.sha256([])
                == "E3:B0:C4:42:98:FC:1C:14:9A:FB:F4:C8:99:6F:B9:24:27:AE:41:E4:64:9B:93:4C:A4:95:99:1B:78:52:B8:55")
    }

    @Test func fingerprintIsThirtyTwoUppercasePairs() {
        let text = Fingerprint.sha256(Array("pttrelay".utf8))
        let pairs = text.split(separator: ":", omittingEmptySubsequences: false)
        #expect(pairs.count == 32)
        #expect(pairs.allSatisfy { $0.count == 2 && $0.allSatisfy { "0123456789ABCDEF".contains($0) } })
        #expect(text.count == 95)
    }
}
