import Foundation
import PTTServer

/// The configuration file (`config.json`): decode and validate as `pttd` does at start. A
/// configuration that is accepted must encode, decode again and still be accepted.
enum ConfigFuzz {
    static func run(_ input: UnsafeRawBufferPointer) {
        guard let config = try? JSONDecoder().decode(ServerConfiguration.self, from: Data(input)),
            (try? config.validate()) != nil
        else { return }
        do {
            let again = try JSONDecoder().decode(ServerConfiguration.self, from: JSONEncoder().encode(config))
            try again.validate()
        } catch {
            preconditionFailure("an accepted configuration did not survive encode/decode/validate: \(error)")
        }
    }
}
