/// The exit codes of `pulsar`, from BSD's sysexits.h (documented in the README).
public enum ExitCode: Int32, Sendable {
    case ok = 0
    /// `lint --strict` found what the device cannot do.
    case findings = 1
    /// Bad command line: unknown option, missing or malformed value.
    case usage = 64
    /// Bad input data: the pattern breaks a rule.
    case dataError = 65
    /// An input file does not exist or cannot be read.
    case noInput = 66
    /// A device or service is unavailable.
    case unavailable = 69
    /// A bug: something that should not happen did.
    case software = 70
    /// Writing an output failed.
    case ioError = 74
    /// Stopped by SIGINT or SIGTERM (128 + 2), where a command ends cleanly on it (`drift`).
    case interrupted = 130
}

/// A failure that ends the command with a one-line message and an exit code.
public struct CommandFailure: Error {
    public var code: ExitCode
    public var message: String

    public init(_ code: ExitCode, _ message: String) {
        self.code = code
        self.message = message
    }
}
