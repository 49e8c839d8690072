#if canImport(Glibc)
import Glibc
#endif

/// The C API's buffer, count and size arguments under fuzzed values: renders and follower calls
/// of any frame and channel count, curves of any count with fuzzed times, option structs of any
/// `size`. Every buffer is exactly as large as the header says the call may touch (and a single
/// float when the count is one the call must refuse), so a read or write past it is
/// AddressSanitizer's finding; an option struct is exactly `size` bytes when that is less than
/// the struct.
extension CAPIEntry {
    /// Buffers the fuzzer allocates at most, in floats: larger valid counts are not called.
    static let maximumBuffer = 1 << 16
    static let int64Edges: [Int64] = [0, 1, 2, 255, 4_096, -1, .min, .max, Int64(Int32.max), Int64(Int32.max) / 2 + 1, 1 << 33]
    static let int32Edges: [Int32] = [0, 1, 2, 3, 63, 64, 65, 1_024, 1_025, -1, .min, .max]
    nonisolated(unsafe) static let actuators = strings(["/nonexistent.acf", "meta-console", "no-such-actuator", String(repeating: "a", count: 5_000),
                                                        "bad\nname\u{202E}", "/" + String(repeating: "d/", count: 3_000) + "x.acf"])
    nonisolated(unsafe) static let methods = strings(["envelope", "android", "loud", String(repeating: "m", count: 4_000)])

    /// A count the input picks: an edge, or a small one from the next byte.
    mutating func count64() -> Int64 {
        let k = input.byte()
        return k < 128 ? Self.int64Edges[Int(k) % Self.int64Edges.count] : Int64(input.byte())
    }

    /// An option struct's `size` member: the struct's own, 0, one the size member alone fills,
    /// a few bytes short of the struct, or far beyond it.
    static func structSize(_ byte: UInt8, full: Int) -> Int {
        switch byte {
        case 0xFF: return full / 2
        case 0xFE: return full - 8
        case 0xFD: return 8
        case 0xFC: return 0
        case 0xFB: return full - 1
        case 0xFA: return .max
        default: return full
        }
    }

    /// `body` with a copy of the first `size` bytes of `scratch` (at least the size member; at
    /// most the `full` struct) in an allocation of exactly that many bytes.
    static func exactly(_ scratch: UnsafeMutableRawPointer, size: Int, full: Int, _ body: (UnsafeRawPointer) -> Void) {
        let count = min(max(size, 8), full)
        let copy = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 8)
        defer { copy.deallocate() }
        copy.copyMemory(from: scratch, byteCount: count)
        body(copy)
    }

    /// Floats for a call that may touch `count`: exactly that many when the call takes it, one
    /// when it must refuse it, nil (no call) for a valid count larger than the fuzzer allocates.
    static func buffer(_ count: Int64, valid: Bool) -> UnsafeMutableBufferPointer<Float>? {
        let n = valid ? count : 1
        guard n <= Int64(maximumBuffer) else { return nil }
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: max(Int(n), 1))
        buffer.initialize(repeating: 0.25)
        return buffer
    }

    /// pulsar_mix_render with any frame count and start, into a buffer of exactly frames × channels.
    mutating func renderAnySize() {
        guard !mixes.isEmpty else { return }
        let mix = mixes[Int(input.byte()) % mixes.count]
        let channels = Int64(api.mixChannels(mix)), frames = count64()
        let from: Int64 = input.byte() & 1 == 0 ? count64() : input.pick([0, -1, 1 << 40, -(1 << 40), .max, .min])
        let valid = frames >= 0 && frames <= Int64(Int32.max) / channels
        if input.byte() & 7 == 0 { _ = api.mixRender(mix, from, nil, frames); return }
        guard let buffer = Self.buffer(valid ? frames * channels : 0, valid: valid) else { return }
        defer { buffer.deallocate() }
        _ = api.mixRender(mix, from, buffer.baseAddress, frames)
    }

    /// A follower from fuzzed options, or one of them fed any channel and frame count.
    mutating func follow() {
        if followers.isEmpty || input.byte() & 3 == 0 {
            if followers.count < 4 { makeFollower() }
            return
        }
        let follower = followers[Int(input.byte()) % followers.count]
        let channels = input.pick(Self.int32Edges), frames = count64()
        let valid = channels >= 1 && channels <= 64 && frames >= 0 && frames <= Int64(Int32.max) / Int64(channels)
        guard let sound = Self.buffer(valid ? frames * Int64(channels) : 0, valid: valid) else { return }
        defer { sound.deallocate() }
        for i in sound.indices where i < 64 { sound[i] = Float(input.double()) }
        guard let haptics = Self.buffer(frames, valid: valid) else { return }
        defer { haptics.deallocate() }
        let nulls = input.byte()
        _ = api.followerProcess(follower, nulls == 1 ? nil : UnsafePointer(sound.baseAddress), channels, frames, nulls == 2 ? nil : haptics.baseAddress)
        _ = api.followerOnsets(follower)
    }

    /// pulsar_follower_options (88 bytes on LP64) with fuzzed members and size.
    private mutating func makeFollower() {
        let full = 88, options = UnsafeMutableRawPointer.allocate(byteCount: full, alignment: 8)
        defer { options.deallocate() }
        options.initializeMemory(as: UInt8.self, repeating: 0, count: full)
        let size = Self.structSize(input.byte(), full: full)
        options.storeBytes(of: size, toByteOffset: 0, as: Int.self)
        options.storeBytes(of: input.pick([0, 48_000, 8_000, 7_999, 192_001, -1, .max] as [Int32]), toByteOffset: 8, as: Int32.self)
        options.storeBytes(of: UnsafePointer(input.pick(Self.methods + [nil])), toByteOffset: 16, as: UnsafePointer<CChar>?.self)
        for offset in stride(from: 32, through: 72, by: 8) where input.byte() & 1 == 1 {
            options.storeBytes(of: input.double(), toByteOffset: offset, as: Double.self)
        }
        options.storeBytes(of: Int32(input.byte() & 1), toByteOffset: 80, as: Int32.self)
        var follower: OpaquePointer?
        Self.exactly(options, size: size, full: full) { _ = api.followerCreate($0, &follower) }
        if let follower { followers.append(follower) }
    }

    /// An intensity curve of any count (arrays of exactly that many points, one for a count the
    /// call must refuse), its times rising, equal, falling or fuzzed.
    mutating func curveOfAnySize(_ voice: OpaquePointer?) {
        let count = input.pick(Self.int32Edges), shape = input.byte() % 4
        let n = count >= 1 && count <= 1_025 ? Int(count) : 1
        let now = engine.map { api.engineTime($0) } ?? 0, step = input.double()
        var times = [Double](repeating: now, count: n), values = [Double](repeating: 0.5, count: n)
        for i in 0..<n {
            switch shape {
            case 0: times[i] = now + Double(i) * 0.001
            case 1: times[i] = now + 0.01
            case 2: times[i] = now + 1 - Double(i) * 0.001
            default: times[i] = now + Double(i) * step
            }
            if i < 16 { values[i] = input.byte() & 1 == 0 ? values[i] : input.double() }
        }
        let nulls = input.byte()
        times.withUnsafeBufferPointer { t in
            values.withUnsafeBufferPointer { v in
                _ = api.voiceIntensityCurve(voice, nulls == 1 ? nil : t.baseAddress, nulls == 2 ? nil : v.baseAddress, count)
            }
        }
    }

    /// pulsar_mix_options (64 bytes on LP64) of any size, with an actuator the input picks.
    mutating func mixFromAnyOptions() {
        guard let source, mixes.count < 6 else { return }
        let full = 64, options = UnsafeMutableRawPointer.allocate(byteCount: full, alignment: 8)
        defer { options.deallocate() }
        options.initializeMemory(as: UInt8.self, repeating: 0, count: full)
        let size = Self.structSize(input.byte(), full: full)
        options.storeBytes(of: size, toByteOffset: 0, as: Int.self)
        options.storeBytes(of: input.pick([0, 8_000, 48_000, 7_999, -1, .max, .min] as [Int32]), toByteOffset: 8, as: Int32.self)
        options.storeBytes(of: UnsafePointer(input.pick(Self.layouts + [nil])), toByteOffset: 16, as: UnsafePointer<CChar>?.self)
        options.storeBytes(of: input.byte() & 1 == 0 ? 0 : input.double(), toByteOffset: 32, as: Double.self)
        options.storeBytes(of: input.pick([0, 1, 2, -1, -2, .max, .min] as [Int32]), toByteOffset: 48, as: Int32.self)
        options.storeBytes(of: UnsafePointer(input.pick(Self.actuators + [nil, nil])), toByteOffset: 56, as: UnsafePointer<CChar>?.self)
        var mix: OpaquePointer?
        Self.exactly(options, size: size, full: full) { _ = api.mixFromPattern(source, $0, &mix) }
        if let mix { mixes.append(mix) }
    }

    /// The thread's last error, as the header promises it: one line of at most 300 characters.
    func checkMessage() {
        guard let message = api.lastError() else { return }
        let text = String(cString: message)
        if text.contains(where: \.isNewline) || text.count > 300 {
            fatalError("pulsar_last_error() is not one line of at most 300 characters (\(text.count)): \(text.prefix(400))")
        }
    }
}
