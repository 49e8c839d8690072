import Foundation

/// The executables built beside the running test bundle: the same `.build` folder of the same
/// checkout, never one found by walking up the tree (which could be another checkout's, or stale).
public enum BuiltProduct {
    /// The folder of the running executable (the test bundle), from `/proc/self/exe`.
    public static let folder: String = {
        let running = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: running).standardizedFileURL.deletingLastPathComponent().path
    }()

    /// The path `name` has beside the test bundle, whether or not it is there.
    public static func path(_ name: String) -> String { folder + "/" + name }

    /// What a test throws when the executable it runs is not built.
    public struct Missing: Error, CustomStringConvertible {
        public let path: String
        public init(path: String) { self.path = path }
        public var description: String {
            "\(path) is not built or not executable: the tests run the executable built beside them "
                + "(`swift build --build-tests` builds both)"
        }
    }

    /// The path of the executable `name` beside the test bundle; throws `Missing` when it is absent.
    public static func executable(_ name: String) throws -> String {
        let path = path(name)
        guard FileManager.default.isExecutableFile(atPath: path) else { throw Missing(path: path) }
        return path
    }
}
