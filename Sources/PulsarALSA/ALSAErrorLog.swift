import CAlsaShim
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Where ALSA's own error messages go: alsa-lib prints them to stderr by default (e.g. "Unknown
/// PCM nonexistent"); once `install()` has run they land in a fixed in-memory ring that a
/// non-real-time caller drains. Nothing is printed unless `isVerbose` is set, and then only by
/// `flushToStandardError()`, which `ALSADevice` calls from `open` and `close` (never from the
/// real-time calls).
///
/// Thread rules: ALSA reports from whichever thread made the failing call — the real-time one
/// included — so recording takes no lock: a writer claims a sequence number with one atomic
/// add and copies into its preallocated slot under the slot's sequence stamp (a seqlock: odd
/// while written, `2 · sequence` once complete). A reader keeps only slots whose stamp is the
/// same complete value before and after its copy; a slot torn by a concurrent overwrite counts as
/// lost, like one overwritten before it was read. `install`, `uninstall`, `drain`,
/// `latestMessage` and `flushToStandardError` belong to non-real-time threads; they allocate.
public final class ALSAErrorLog: @unchecked Sendable {
    /// One message from alsa-lib.
    public struct Entry: Hashable, Sendable, CustomStringConvertible {
        /// Order of arrival since the process started (1 for the first message).
        public var sequence: UInt64
        public var file: String
        public var line: Int
        public var function: String
        /// The errno value alsa-lib passed (0 when none).
        public var errorCode: Int32
        public var message: String

        public var description: String {
            let code = errorCode == 0 ? "" : " (\(String(cString: strerror(errorCode))))"
            return "ALSA \(file):\(line) \(function): \(message)\(code)"
        }
    }

    /// The log alsa-lib reports into (its handler is process-wide).
    public static let shared = ALSAErrorLog(capacity: 64)

    /// Entries kept; older ones are overwritten.
    public let capacity: Int
    private let verbose = Atomic<Bool>(false)
    private let installed = Atomic<Bool>(false)
    /// Preallocated slots; a slot is `sequence, line, errorCode` then three NUL-terminated texts.
    private let slots: UnsafeMutablePointer<Slot>
    /// Each slot's seqlock stamp (odd: being written; `2 · sequence`: holds that entry).
    private let stamps: [Stamp]
    /// Entries claimed so far (the sequence of the newest).
    private let claimed = Atomic<UInt64>(0)
    /// Entries handed out by `drain` (readers are non-real-time; one at a time).
    private let drained = Mutex<UInt64>(0)

    private final class Stamp: Sendable {
        let value = Atomic<UInt64>(0)
    }

    private static let fileBytes = 96
    private static let functionBytes = 64
    private static let messageBytes = 512

    private struct Slot {
        var sequence: UInt64 = 0
        var line: Int32 = 0
        var errorCode: Int32 = 0
        var file: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var function: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        var message: (
            UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
            UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
            UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
            UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64
        ) = (
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
        )
    }

    private init(capacity: Int) {
        precondition(capacity > 0, "an error log needs at least one slot")
        self.capacity = capacity
        slots = UnsafeMutablePointer<Slot>.allocate(capacity: capacity)
        slots.initialize(repeating: Slot(), count: capacity)
        stamps = (0..<capacity).map { _ in Stamp() }
    }

    deinit {
        slots.deinitialize(count: capacity)
        slots.deallocate()
    }

    /// Whether `flushToStandardError()` prints (false: ALSA stays silent).
    public var isVerbose: Bool {
        get { verbose.load(ordering: .relaxed) }
        set { verbose.store(newValue, ordering: .relaxed) }
    }

    /// Routes alsa-lib's error handler into `shared`. Idempotent.
    public static func install() {
        _ = shared
        guard !shared.installed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        _ = pulsar_alsa_error_install { file, line, function, err, message in
            ALSAErrorLog.shared.record(file: file, line: line, function: function, errorCode: err, message: message)
        }
    }

    /// Gives alsa-lib back its default handler (printing to stderr).
    public static func uninstall() {
        guard shared.installed.exchange(false, ordering: .acquiringAndReleasing) else { return }
        _ = pulsar_alsa_error_uninstall()
    }

    /// Stores one message, overwriting the oldest when full. Any thread, the real-time one
    /// included: one atomic add, a bounded copy, no lock, no allocation.
    func record(file: UnsafePointer<CChar>?, line: Int32, function: UnsafePointer<CChar>?,
                errorCode: Int32, message: UnsafePointer<CChar>?) {
        let sequence = claimed.wrappingAdd(1, ordering: .relaxed).newValue
        let index = Int((sequence - 1) % UInt64(capacity))
        let stamp = stamps[index]
        stamp.value.store(2 * sequence - 1, ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
        let slot = slots + index
        slot.pointee.sequence = sequence
        slot.pointee.line = line
        slot.pointee.errorCode = errorCode
        Self.copy(file, into: &slot.pointee.file, bytes: Self.fileBytes)
        Self.copy(function, into: &slot.pointee.function, bytes: Self.functionBytes)
        Self.copy(message, into: &slot.pointee.message, bytes: Self.messageBytes)
        stamp.value.store(2 * sequence, ordering: .releasing)
    }

    /// A consistent copy of the entry with `sequence`, or nil when its slot is being written or
    /// already holds a later one. Non-real-time.
    private func read(_ sequence: UInt64) -> Slot? {
        let index = Int((sequence - 1) % UInt64(capacity))
        let stamp = stamps[index]
        guard stamp.value.load(ordering: .acquiring) == 2 * sequence else { return nil }
        let copy = slots[index]
        atomicMemoryFence(ordering: .acquiring)
        guard stamp.value.load(ordering: .relaxed) == 2 * sequence else { return nil }
        return copy
    }

    private static func copy<T>(_ text: UnsafePointer<CChar>?, into field: inout T, bytes: Int) {
        withUnsafeMutableBytes(of: &field) { raw in
            let count = text.map { strnlen($0, bytes - 1) } ?? 0
            if let text, count > 0 {
                raw.baseAddress!.copyMemory(from: text, byteCount: count)
            }
            raw[count] = 0
        }
    }

    /// Messages recorded so far (also those overwritten or drained).
    public var recordedCount: UInt64 {
        claimed.load(ordering: .acquiring)
    }

    /// Returns the messages not yet drained, oldest first, and marks them drained. Messages
    /// overwritten before being drained are lost (their sequence numbers show the gap).
    public func drain() -> [Entry] {
        drained.withLock { drained in
            let newest = claimed.load(ordering: .acquiring)
            let oldest = max(drained, newest >= UInt64(capacity) ? newest - UInt64(capacity) : 0)
            drained = newest
            guard oldest < newest else { return [] }
            return ((oldest + 1)...newest).compactMap { read($0).map(Self.entry) }
        }
    }

    /// The newest message recorded after `recordedCount` was `mark`, without draining it.
    public func latestMessage(after mark: UInt64) -> Entry? {
        let newest = claimed.load(ordering: .acquiring)
        guard newest > mark else { return nil }
        return read(newest).map(Self.entry)
    }

    /// When verbose, drains and prints every pending message to stderr, one line each; otherwise
    /// does nothing (the messages wait for `drain`). Non-real-time threads only.
    public func flushToStandardError() {
        guard isVerbose else { return }
        for entry in drain() {
            let line = "\(entry)\n"
            _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
        }
    }

    private static func entry(_ slot: Slot) -> Entry {
        var slot = slot
        func text<T>(_ field: inout T) -> String {
            withUnsafeBytes(of: &field) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
        }
        return Entry(sequence: slot.sequence, file: text(&slot.file), line: Int(slot.line),
                     function: text(&slot.function), errorCode: slot.errorCode, message: text(&slot.message))
    }
}
