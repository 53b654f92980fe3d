import Foundation

/// Where the package's files are, for tests that read its documents, scripts and fixtures.
enum PackagePaths {
    /// The package's root directory (this file is Tests/PTTServerTests/Support/PackagePaths.swift).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    /// Its Tests directory.
    static let tests = root.appendingPathComponent("Tests")
}
