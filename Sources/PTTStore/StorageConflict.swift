/// A directory write refused because the stored directory changed meanwhile: another node of a cluster created a
/// channel of the same name, or deleted the channel or user the write refers to, or stored the same membership.
///
/// Nothing was written. The writer should load the directory again (it then holds the other node's change) and
/// plan the write anew against it: a join adopts the channel the other node created, or creates again the one it
/// deleted. A single process (``SQLiteStore``) plans every write against what it stored itself, so only a shared
/// store throws this.
public struct StorageConflict: Error, CustomStringConvertible {
    /// What the database said, in its own words.
    public var reason: String

    public init(reason: String) {
        self.reason = reason
    }

    public var description: String { "the directory changed on another node meanwhile: \(reason)" }
}
