#if canImport(Glibc)
import Glibc
#endif
import PulsarCore

/// The C API's opaque handles: a retained Swift object behind each pointer, registered while it
/// lives. Every call checks its handle here first, so a NULL, a freed or a foreign pointer — or a
/// handle of another kind — is an error code, never a crash (as long as the address has not been
/// reused by a later handle of the same kind, which the header documents). Any thread; the
/// registry's lock is held only to look a handle up.
enum Handles {
    private static let lock = Lock()
    nonisolated(unsafe) private static var live: [UnsafeMutableRawPointer: ObjectIdentifier] = [:]

    /// A new handle for `object`, retained until `release`.
    static func make<T: AnyObject>(_ object: T) -> OpaquePointer {
        let pointer = Unmanaged.passRetained(object).toOpaque()
        lock.lock()
        live[pointer] = ObjectIdentifier(T.self)
        lock.unlock()
        return OpaquePointer(pointer)
    }

    /// The object behind `handle`, when it is a live handle of type `T`.
    static func object<T: AnyObject>(_ handle: OpaquePointer?, as type: T.Type) -> T? {
        guard let handle else { return nil }
        let pointer = UnsafeMutableRawPointer(handle)
        lock.lock()
        defer { lock.unlock() }
        guard live[pointer] == ObjectIdentifier(T.self) else { return nil }
        return Unmanaged<T>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// `pulsar_*_free`: ends `handle`; NULL does nothing, anything but a live handle of type `T`
    /// sets the thread's error and does nothing else.
    static func free<T: AnyObject>(_ handle: OpaquePointer?, as type: T.Type, _ function: String, kind: String) {
        if handle != nil, !release(handle, as: type) {
            _ = Result.argument.failing("\(function): not a live \(kind) (freed twice?)")
        }
    }

    /// Ends `handle` (a live one of type `T`); false when it was not one.
    @discardableResult
    static func release<T: AnyObject>(_ handle: OpaquePointer?, as type: T.Type) -> Bool {
        guard let handle else { return false }
        let pointer = UnsafeMutableRawPointer(handle)
        lock.lock()
        guard live[pointer] == ObjectIdentifier(T.self) else {
            lock.unlock()
            return false
        }
        live[pointer] = nil
        lock.unlock()
        Unmanaged<T>.fromOpaque(pointer).release()
        return true
    }
}

/// The calling thread's last error message, as `pulsar_last_error` returns it: one UTF-8 line of
/// at most `MessageText.maximumLine` characters, valid until the next call on that thread that
/// sets one.
enum LastError {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { free($0) }
        return key
    }()

    /// Every message libpulsar returns passes here: whatever a caller's input put in it (a
    /// 200 000-character name, a newline), it leaves as one bounded line.
    static func set(_ message: String) {
        let old = pthread_getspecific(key)
        pthread_setspecific(key, strdup(MessageText.line(message)))
        free(old)
    }

    static var current: UnsafePointer<CChar>? {
        pthread_getspecific(key).map { UnsafePointer($0.assumingMemoryBound(to: CChar.self)) }
    }
}

/// The codes of `pulsar_result` (include/pulsar.h).
enum Result: Int32 {
    case ok = 0
    case argument = -1
    case notFound = -2
    case data = -3
    case io = -4
    case device = -5
    case busy = -6
    case state = -7

    /// `self`, with `message` as the thread's last error.
    func failing(_ message: String) -> Int32 {
        LastError.set(message)
        return rawValue
    }
}

/// A C string argument as Swift text: nil for NULL or for bytes that are not UTF-8.
func text(_ pointer: UnsafePointer<CChar>?) -> String? {
    guard let pointer else { return nil }
    return String(validatingCString: pointer)
}

/// Input echoed in a message (a name, a path, an id): on one line and cut to
/// `MessageText.excerpt`'s length, quoted.
func echoed(_ value: String) -> String { "'\(MessageText.excerpt(value))'" }
