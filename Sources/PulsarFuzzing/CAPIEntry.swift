#if canImport(Glibc)
import Glibc
#endif

/// A sequence of C API calls decoded from the input's bytes: an engine on simulated devices
/// (one or two, options chosen among valid and invalid ones), mixes of a small pattern, voices,
/// and up to `maximumCalls` calls — transport, ramps, curves, content times, clocks, callbacks,
/// polls, renders, stop, freeing the engine before its voices — with doubles that include NaN,
/// infinities, negatives and values just past the header's limits. Only what the header
/// allows: no handle is used after its own free, none is freed twice. Nothing sleeps; the
/// engine's real-time thread runs on the system clock meanwhile and is joined at the end. The
/// buffer calls (`CAPIBufferCalls.swift`) fuzz counts, sizes and option structs, every buffer
/// exactly as large as the header says, so a read or write past it is AddressSanitizer's; every
/// message the library leaves must be one line of at most 300 characters.
struct CAPIEntry {
    static let maximumCalls = 48
    static let maximumVoices = 8

    /// Doubles a byte picks: the header's edges and what no caller should pass.
    static let doubles: [Double] = [0, .nan, .infinity, -.infinity, -1, -0.0, 0.001, 0.5, 1, 2, 4, 4.000001, -1.000001, 100, 1000,
                                    86_400, 86_400.5, 86_400_000, 86_400_001, 1e300, -1e300, .leastNonzeroMagnitude, .greatestFiniteMagnitude]
    /// Simulated devices only (never ALSA, never `record=`, which writes a file).
    nonisolated(unsafe) static let devices = strings(["sim", "sim:ppm=200", "sim:ppm=-150,latency=5", "sim:jitter=2", "sim:granularity=64",
                                                      "sim:unplug=0", "sim:unplug=3", "sim:channels=1", "sim:format=s16", "sim:bogus=1"])
    nonisolated(unsafe) static let layouts = strings(["haptic", "L,R,H", "stereo+haptic", "mix", "quad", "L+H,R+H,0", "nonsense"])
    static let pattern = Array(#"{"continuousPattern":{"amplitude":[{"time":0,"value":0.2},{"time":120,"value":1},{"time":300,"value":0}],"frequency":[{"time":0,"value":0.5},{"time":300,"value":0.9}]},"discretePattern":[{"time":40,"amplitude":1,"frequency":0.7}]}"#.utf8)

    let api: CAPI
    var input: ByteReader
    var engine: OpaquePointer?
    var mixes: [OpaquePointer] = []
    var voices: [OpaquePointer] = []
    var followers: [OpaquePointer] = []
    /// The pattern every mix is made of.
    var source: OpaquePointer?

    static func run(_ bytes: [UInt8]) {
        guard let api = CAPI.loaded else { return }
        var entry = CAPIEntry(api: api, input: ByteReader(bytes))
        entry.play()
    }

    private mutating func play() {
        var pattern: OpaquePointer?
        guard Self.pattern.withUnsafeBytes({ api.patternFromMemory($0.baseAddress, $0.count, &pattern) }) == 0, let pattern else { return }
        defer { api.patternFree(pattern) }
        source = pattern
        let (rate, layout) = createEngine()
        makeMix(pattern, rate: rate, layout: layout)
        makeMix(pattern, rate: input.pick([0, 8_000, 44_100, 48_000, 7_999]), layout: input.pick(Self.layouts))
        defer { for mix in mixes { api.mixFree(mix) } }
        defer { for follower in followers { api.followerFree(follower) } }
        for _ in 0..<Self.maximumCalls where !input.isAtEnd { call(input.byte()) }
        // Teardown in the order the input leaves: voices first or the engine first.
        if input.byte() & 1 == 0, let engine { api.engineFree(engine); self.engine = nil }
        for voice in voices { api.voiceFree(voice) }
        if let engine { api.engineFree(engine) }
    }

    /// The engine from options the input picks; its rate and layout (the options' own).
    private mutating func createEngine() -> (Int32, UnsafeMutablePointer<CChar>?) {
        let options = UnsafeMutableRawPointer.allocate(byteCount: 80, alignment: 8)
        defer { options.deallocate() }
        options.initializeMemory(as: UInt8.self, repeating: 0, count: 80)
        // Offsets of pulsar_engine_options on LP64, as include/pulsar.h lays it out.
        let rate: Int32 = input.pick([0, 8_000, 48_000, 44_100, 7_999])
        let layout = input.pick(Self.layouts + [nil])
        let size = Self.structSize(input.byte(), full: 80)
        options.storeBytes(of: size, toByteOffset: 0, as: Int.self)
        options.storeBytes(of: UnsafePointer(input.pick(Self.devices)), toByteOffset: 8, as: UnsafePointer<CChar>?.self)
        options.storeBytes(of: UnsafePointer(layout), toByteOffset: 16, as: UnsafePointer<CChar>?.self)
        options.storeBytes(of: rate, toByteOffset: 24, as: Int32.self)
        options.storeBytes(of: input.pick([0, 16, 64, 256, 15, 16_385]), toByteOffset: 28, as: Int32.self)
        options.storeBytes(of: input.pick([0, 32, 512, 1_024, 31]), toByteOffset: 32, as: Int32.self)
        options.storeBytes(of: input.pick([0, 1, 2, 3, 128, 129, -1]), toByteOffset: 36, as: Int32.self)
        let haptic = input.byte() & 3 == 3 ? UnsafePointer(input.pick(Self.devices)) : nil
        options.storeBytes(of: haptic, toByteOffset: 40, as: UnsafePointer<CChar>?.self)
        options.storeBytes(of: UnsafePointer(input.pick(Self.layouts + [nil])), toByteOffset: 48, as: UnsafePointer<CChar>?.self)
        options.storeBytes(of: input.double(), toByteOffset: 56, as: Double.self)
        options.storeBytes(of: input.double(), toByteOffset: 64, as: Double.self)
        Self.exactly(options, size: size, full: 80) { _ = api.engineCreate($0, &engine) }
        return (rate, layout)
    }

    /// A mix of the pattern, from pulsar_mix_options at C's offsets.
    private mutating func makeMix(_ pattern: OpaquePointer, rate: Int32, layout: UnsafeMutablePointer<CChar>?) {
        let options = UnsafeMutableRawPointer.allocate(byteCount: 56, alignment: 8)
        defer { options.deallocate() }
        options.initializeMemory(as: UInt8.self, repeating: 0, count: 56)
        options.storeBytes(of: 56, toByteOffset: 0, as: Int.self)
        options.storeBytes(of: rate, toByteOffset: 8, as: Int32.self)
        options.storeBytes(of: UnsafePointer(layout), toByteOffset: 16, as: UnsafePointer<CChar>?.self)
        options.storeBytes(of: input.byte() & 1 == 0 ? 0 : input.double(), toByteOffset: 32, as: Double.self)
        options.storeBytes(of: input.pick([0, 1, 3, -1, -2, 1_000_000]), toByteOffset: 48, as: Int32.self)
        var mix: OpaquePointer?
        if api.mixFromPattern(pattern, options, &mix) == 0, let mix { mixes.append(mix) }
    }

    /// One call the byte names, on a voice the next byte picks.
    private mutating func call(_ op: UInt8) {
        let pick = Int(input.byte())
        let voice = voices.isEmpty ? nil : voices[pick % voices.count]
        switch op % 16 {
        case 0: makeVoice()
        case 1, 2:
            let k = Int(input.byte()) % api.voiceTimed.count
            // play_at takes an engine time: near the engine's now, or what the input says.
            let now = engine.map { api.engineTime($0) } ?? 0
            let t = k == 1 && input.byte() & 1 == 0 ? now + input.double() : input.double()
            _ = voice.map { api.voiceTimed[k]($0, t) }
        case 3: _ = voice.map { api.voicePlain[Int(input.byte()) % api.voicePlain.count]($0) }
        case 4: _ = voice.map { api.voiceRamp[Int(input.byte()) % api.voiceRamp.count]($0, input.double(), input.double()) }
        case 5: curve(voice)
        case 6: _ = voice.map { api.voiceClock[Int(input.byte()) % api.voiceClock.count]($0) }
        case 7: _ = voice.map { api.voiceOnCompletion($0, input.byte() & 1 == 0 ? Self.completion : nil, nil) }
        case 8: _ = api.enginePoll(engine); _ = api.engineIsIdle(engine); _ = api.engineTime(engine)
        case 9: _ = api.engineSetMasterGain(engine, input.double(), input.double())
        case 10: input.byte() & 1 == 0 ? render() : stopOrFree()
        case 11: freeVoice()
        case 12: renderAnySize()
        case 13: follow()
        case 14: curveOfAnySize(voice)
        default: mixFromAnyOptions()
        }
        checkMessage()
    }

    private mutating func makeVoice() {
        guard voices.count < Self.maximumVoices, !mixes.isEmpty else { return }
        var voice: OpaquePointer?
        let mix = mixes[Int(input.byte()) % mixes.count]
        if api.engineVoice(engine, mix, Int32(Int8(bitPattern: input.byte())), Int32(input.byte() & 1), &voice) == 0, let voice {
            voices.append(voice)
        }
    }

    /// An intensity curve of up to 8 points at engine times near now (rising or not, as the input says).
    private mutating func curve(_ voice: OpaquePointer?) {
        let count = Int(input.byte() % 10) - 1
        let now = engine.map { api.engineTime($0) } ?? 0
        let n = max(count, 0)
        let times = (0..<n).map { _ in now + input.double() / 1000 }, values = (0..<n).map { _ in input.double() }
        _ = voice.map { api.voiceIntensityCurve($0, times, values, Int32(count)) }
    }

    /// Up to 256 frames of a mix from a frame the input picks.
    private mutating func render() {
        guard !mixes.isEmpty else { return }
        let mix = mixes[Int(input.byte()) % mixes.count]
        let channels = Int(max(api.mixChannels(mix), 1)), frames = Int(input.byte())
        _ = api.mixFrames(mix)
        var buffer = [Float](repeating: 0, count: max(frames * channels, 1))
        let from: Int64 = input.pick([0, 1, -1, 4_800, 1 << 40, .max, .min])
        _ = buffer.withUnsafeMutableBufferPointer { api.mixRender(mix, from, $0.baseAddress, Int64(frames)) }
    }

    /// pulsar_engine_stop, or pulsar_engine_free with the voices kept (their calls then fail).
    private mutating func stopOrFree() {
        guard let engine else { return }
        if input.byte() & 1 == 0 {
            _ = api.engineStop(engine)
        } else {
            api.engineFree(engine)
            self.engine = nil
        }
    }

    private mutating func freeVoice() {
        guard !voices.isEmpty else { return }
        api.voiceFree(voices.remove(at: Int(input.byte()) % voices.count))
    }

    static let completion: CAPI.Completion = { _, _, _ in }

    /// C strings that live as long as the process.
    static func strings(_ all: [String]) -> [UnsafeMutablePointer<CChar>?] { all.map { strdup($0) } }
}

/// The input's bytes, read front to back; zeros past the end.
struct ByteReader {
    let bytes: [UInt8]
    var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset >= bytes.count }

    mutating func byte() -> UInt8 {
        defer { offset += 1 }
        return offset < bytes.count ? bytes[offset] : 0
    }

    mutating func pick<T>(_ from: [T]) -> T { from[Int(byte()) % from.count] }

    /// A double from the table, or (for bytes past it) the next 8 bytes' bits.
    mutating func double() -> Double {
        let k = Int(byte())
        if k < CAPIEntry.doubles.count { return CAPIEntry.doubles[k] }
        if k < 128 { return Double(k - 64) * 0.25 }
        var bits: UInt64 = 0
        for _ in 0..<8 { bits = bits << 8 | UInt64(byte()) }
        return Double(bitPattern: bits)
    }
}
