/// APNs settings that cannot be used, with a message for the operator that names the setting (`apns.keyId`,
/// `apns.keyFile`, ...) and, for files, the path.
///
/// Thrown by `APNsSettings.validate()` and by `APNsClient.init` when a file it names is missing or unusable.
public enum APNsSettingsError: Error, CustomStringConvertible, Equatable, Sendable {
    /// What is wrong, as a sentence for the operator.
    case invalid(String)

    /// The message.
    public var description: String {
        switch self {
        case .invalid(let message): message
        }
    }
}
