import Glibc
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarSession

/// What a `pulsar_pattern` holds, and where it came from (for an engine's event log).
final class PatternBox {
    let loaded: LoadedPattern
    let origin: ContentOrigin
    /// The warnings met reading it, one line each, as C strings it owns.
    let warnings: CStrings
    var pattern: PatternData { loaded.pattern }
    init(_ loaded: LoadedPattern, origin: ContentOrigin) {
        self.loaded = loaded
        self.origin = origin
        warnings = CStrings(loaded.warnings.map { MessageText.line($0.description) })
    }
}

/// C strings owned by a handle, freed with it.
final class CStrings {
    let pointers: [UnsafeMutablePointer<CChar>]
    init(_ texts: [String]) { pointers = texts.map { strdup($0)! } }
    deinit { pointers.forEach { free($0) } }
    /// String `index`, or nil (the thread's last error set, naming `function`) when out of range.
    func at(_ index: Int32, _ function: String) -> UnsafePointer<CChar>? {
        guard index >= 0, Int(index) < pointers.count else {
            _ = Result.argument.failing("\(function): index \(index) is not in 0..<\(pointers.count)")
            return nil
        }
        return UnsafePointer(pointers[Int(index)])
    }
}

/// What a `pulsar_bundle` holds: the bundle and its preset ids as C strings it owns.
final class BundleBox {
    let bundle: PresetBundle
    let ids: [UnsafeMutablePointer<CChar>]
    /// The warnings met opening it, one line each.
    let warnings: CStrings
    init(_ bundle: PresetBundle) {
        self.bundle = bundle
        ids = bundle.presets.map { strdup($0.id)! }
        warnings = CStrings(bundle.warnings.map { MessageText.line($0.description) })
    }
    deinit { ids.forEach { free($0) } }
}

/// What a `pulsar_mix` holds: the session layer's content (a mixer, a pattern or a preset in a
/// layout at a rate), rendered from one thread at a time.
final class MixBox {
    let content: SessionContent
    let lock = Lock()
    /// The warnings met making it (`pulsar_mix_open`), one line each.
    let warnings: CStrings
    var mixer: PresetMixer { content.mixer }
    init(_ content: SessionContent, warnings: [String] = []) {
        self.content = content
        self.warnings = CStrings(warnings)
    }
}

@_cdecl("pulsar_version")
public func pulsar_version() -> UnsafePointer<CChar> { PulsarVersion.cString }

/// PULSAR_ABI_VERSION of include/pulsar.h: the soname's major number.
@_cdecl("pulsar_abi_version")
public func pulsar_abi_version() -> Int32 { 0 }

/// The version as a C string with static lifetime.
enum PulsarVersion {
    nonisolated(unsafe) static let cString: UnsafePointer<CChar> = UnsafePointer(strdup(Pulsar.version)!)
}

@_cdecl("pulsar_last_error")
public func pulsar_last_error() -> UnsafePointer<CChar>? { LastError.current }

@_cdecl("pulsar_pattern_open")
public func pulsar_pattern_open(_ path: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let out else { return Result.argument.failing("pulsar_pattern_open: out is NULL") }
    out.pointee = nil
    guard let path = text(path) else { return Result.argument.failing("pulsar_pattern_open: the path is NULL or not UTF-8") }
    do {
        let loaded = try PatternLoader().load(contentsOf: path)
        out.pointee = Handles.make(PatternBox(loaded, origin: .file(path: absolutePath(path), preset: nil)))
        return Result.ok.rawValue
    } catch {
        return (error.rule == .missingInput ? Result.notFound : Result.data).failing(error.description)
    }
}

@_cdecl("pulsar_pattern_from_memory")
public func pulsar_pattern_from_memory(_ bytes: UnsafeRawPointer?, _ length: Int, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let out else { return Result.argument.failing("pulsar_pattern_from_memory: out is NULL") }
    out.pointee = nil
    guard let bytes, length >= 0, length <= 64 << 20 else {
        return Result.argument.failing("pulsar_pattern_from_memory: no bytes, or more than 64 MiB")
    }
    do {
        let data = Array(UnsafeRawBufferPointer(start: bytes, count: length))
        let loaded = try PatternLoader().decode(data, file: "memory")
        out.pointee = Handles.make(PatternBox(loaded, origin: .bytes(data)))
        return Result.ok.rawValue
    } catch {
        return Result.data.failing(error.description)
    }
}

@_cdecl("pulsar_pattern_duration_ms")
public func pulsar_pattern_duration_ms(_ pattern: OpaquePointer?) -> Double {
    guard let box = Handles.object(pattern, as: PatternBox.self) else {
        _ = Result.argument.failing("pulsar_pattern_duration_ms: not a live pulsar_pattern")
        return -1
    }
    // As long as it sounds: frames until the last that can be non-zero on the default device
    // (a lone transient's burst counted), not the time of its last point.
    guard let renderer = try? PatternRenderer(pattern: box.pattern, sampleRate: SampleRate(48_000)!) else { return box.pattern.lastPointTime }
    return Double(renderer.frameCount) * 1000 / 48_000
}

@_cdecl("pulsar_pattern_free")
public func pulsar_pattern_free(_ pattern: OpaquePointer?) {
    Handles.free(pattern, as: PatternBox.self, "pulsar_pattern_free", kind: "pulsar_pattern")
}

@_cdecl("pulsar_bundle_open")
public func pulsar_bundle_open(_ path: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let out else { return Result.argument.failing("pulsar_bundle_open: out is NULL") }
    out.pointee = nil
    guard let path = text(path) else { return Result.argument.failing("pulsar_bundle_open: the path is NULL or not UTF-8") }
    do {
        out.pointee = Handles.make(BundleBox(try PresetBundle.open(path)))
        return Result.ok.rawValue
    } catch {
        return (error.rule == .notFound ? Result.notFound : Result.data).failing(error.description)
    }
}

@_cdecl("pulsar_bundle_preset_count")
public func pulsar_bundle_preset_count(_ bundle: OpaquePointer?) -> Int32 {
    guard let box = Handles.object(bundle, as: BundleBox.self) else { return Result.argument.failing("pulsar_bundle_preset_count: not a live pulsar_bundle") }
    return Int32(box.ids.count)
}

@_cdecl("pulsar_bundle_preset_id")
public func pulsar_bundle_preset_id(_ bundle: OpaquePointer?, _ index: Int32) -> UnsafePointer<CChar>? {
    guard let box = Handles.object(bundle, as: BundleBox.self) else {
        _ = Result.argument.failing("pulsar_bundle_preset_id: not a live pulsar_bundle")
        return nil
    }
    guard index >= 0, Int(index) < box.ids.count else {
        _ = Result.argument.failing("pulsar_bundle_preset_id: index \(index) is not in 0..<\(box.ids.count)")
        return nil
    }
    return UnsafePointer(box.ids[Int(index)])
}

@_cdecl("pulsar_bundle_free")
public func pulsar_bundle_free(_ bundle: OpaquePointer?) {
    Handles.free(bundle, as: BundleBox.self, "pulsar_bundle_free", kind: "pulsar_bundle")
}

/// `pulsar_mix_options` (include/pulsar.h), as C lays it out.
public struct CMixOptions {
    var size: Int
    var sampleRate: Int32
    var layout: UnsafePointer<CChar>?
    var profile: UnsafePointer<CChar>?
    var hapticGain: Double
    var audioGain: Double
    var loopCount: Int32
}

/// `pulsar_mix_options.actuator`, a member grown at the struct's end: read only when the caller's
/// `size` covers it (a caller built against the smaller struct passes the smaller size).
private let actuatorOffset = MemoryLayout<CMixOptions>.stride

/// `options` as C laid it out, read only as far as its `size` says (a caller's struct may be an
/// older, smaller one); nil for NULL. `size` is returned with it; a size below the members every
/// version has is refused before anything else is read.
func mixOptions(_ options: UnsafeRawPointer?) -> (CMixOptions, size: UInt)?? {
    guard let options else { return .some(nil) }
    let size = options.load(as: UInt.self)  // a size_t: any value, however large
    guard size >= MemoryLayout<CMixOptions>.size else {
        _ = Result.argument.failing("pulsar_mix_options: size \(size) is less than sizeof(pulsar_mix_options) \(MemoryLayout<CMixOptions>.size): use PULSAR_MIX_OPTIONS_INIT")
        return .none
    }
    return .some((options.load(as: CMixOptions.self), size))
}

/// `pulsar_mix_options.actuator` when the caller's `size` covers it, else NULL.
func actuatorMember(_ options: UnsafeRawPointer, size: UInt) -> UnsafePointer<CChar>? {
    guard size >= actuatorOffset + MemoryLayout<UnsafePointer<CChar>?>.size else { return nil }
    return options.load(fromByteOffset: actuatorOffset, as: UnsafePointer<CChar>?.self)
}

/// `pulsar_mix_options`' members after `actuator` (derive, the segment, the offset, reverse), as C
/// lays them out from the 8-aligned offset after it.
struct CMixOptionsTail {
    var derive: Int32
    var fromMs: Double
    var toMs: Double
    var hapticOffsetMs: Double
    var reverse: Int32
}

/// The tail when the caller's `size` covers it, else nil (an older, smaller struct).
func tailMembers(_ options: UnsafeRawPointer, size: UInt) -> CMixOptionsTail? {
    let offset = actuatorOffset + MemoryLayout<UnsafePointer<CChar>?>.stride
    guard size >= offset + MemoryLayout<CMixOptionsTail>.size else { return nil }
    return options.load(fromByteOffset: offset, as: CMixOptionsTail.self)
}

/// Whether `options` name the device (a profile or an actuator).
func namesDevice(_ options: UnsafeRawPointer?) -> Bool {
    guard let options, case .some(.some(let (o, size))) = mixOptions(options) else { return false }
    return o.profile != nil || actuatorMember(options, size: size) != nil
}

/// Whether `options` name a layout.
func layoutGiven(_ options: UnsafeRawPointer?) -> Bool {
    guard let options, case .some(.some(let (o, _))) = mixOptions(options) else { return false }
    return o.layout != nil
}

/// `pulsar_mix_options.haptic_gain` when set (not 0), else nil.
func hapticGainGiven(_ options: UnsafeRawPointer?) -> Double? {
    guard let options, case .some(.some(let (o, _))) = mixOptions(options), o.hapticGain != 0 else { return nil }
    return o.hapticGain
}

/// Mix settings from `options` (NULL: the defaults), or nil with the thread's last error set and
/// `failure` the code to return (an argument error, or a config that is missing or bad data).
func settings(_ options: UnsafeRawPointer?, defaultLayout: ChannelLayout, failure: inout Result) -> (MixSettings, PlaybackRange)? {
    failure = .argument
    var settings = MixSettings(layout: defaultLayout)
    var range = PlaybackRange()
    // The struct has C's layout (members in order, natural alignment), as Swift lays it out.
    guard let read = mixOptions(options) else { return nil }
    guard let (o, size) = read else { return (settings, range) }
    if o.sampleRate != 0 {
        guard let rate = SampleRate(Int(o.sampleRate)) else { _ = Result.argument.failing("pulsar_mix_options: sample_rate \(o.sampleRate) is not in 8000...192000"); return nil }
        settings.sampleRate = rate
    }
    if let l = o.layout {
        guard let name = text(l), let layout = ChannelLayout(parsing: name) else { _ = Result.argument.failing("pulsar_mix_options: layout is not mix, stereo+haptic, quad, haptic, android or a channel map"); return nil }
        settings.layout = layout
    }
    if let p = o.profile {
        guard let name = text(p), let profile = ActuatorProfile(parsing: name) else { _ = Result.argument.failing("pulsar_mix_options: profile is not wideband, lra, lra:HZ or FMIN:FMAX"); return nil }
        settings.profile = profile
    }
    if let a = actuatorMember(options!, size: size) {
        guard o.profile == nil else { _ = Result.argument.failing("pulsar_mix_options: actuator and profile both name the device: set one"); return nil }
        guard let value = text(a) else { _ = Result.argument.failing("pulsar_mix_options: actuator is not UTF-8"); return nil }
        guard let actuator = LibraryActuators.actuator(value, rate: settings.sampleRate, what: "pulsar_mix_options: actuator", failure: &failure) else { return nil }
        (settings.actuator, settings.profile) = (actuator, actuator.profile)
    }
    if o.hapticGain != 0 {
        guard o.hapticGain.isFinite, o.hapticGain > 0, o.hapticGain <= 16 else { _ = Result.argument.failing("pulsar_mix_options: haptic_gain must be in (0, 16]"); return nil }
        // The gain of the device named: an actuator's (its render, envelope or burst), as the
        // command line's --gain sets it, else the profile's.
        if var actuator = settings.actuator {
            actuator.gain = o.hapticGain
            (settings.actuator, settings.profile) = (actuator, actuator.profile)
        } else {
            settings.profile.gain = o.hapticGain
        }
    }
    if o.audioGain != 0 {
        guard o.audioGain.isFinite, o.audioGain > 0, o.audioGain <= 16 else { _ = Result.argument.failing("pulsar_mix_options: audio_gain must be in (0, 16]"); return nil }
        settings.audioGain = o.audioGain
    }
    if o.loopCount != 0 {
        guard o.loopCount > 0 || o.loopCount == -1 else { _ = Result.argument.failing("pulsar_mix_options: loop_count is a count > 0, or -1 for endless"); return nil }
        range.loopCount = o.loopCount == -1 ? PlaybackTimeline.endless : Int(o.loopCount)
    }
    if let tail = tailMembers(options!, size: size) {
        let checked = refusal("pulsar_mix_options") { () throws(RangeError) in
            if tail.fromMs != 0 { range.from = try Limits.contentMilliseconds(tail.fromMs, "from_ms") }
            if tail.toMs != 0 { range.to = try Limits.contentMilliseconds(tail.toMs, "to_ms") }
            if tail.hapticOffsetMs != 0 { settings.hapticOffset = try Limits.milliseconds(tail.hapticOffsetMs, "haptic_offset_ms", signed: true) }
        }
        if checked != nil { return nil }
        range.reverse = tail.reverse != 0
    }
    return (settings, range)
}

/// A mixer of `preset` with `options`, as a new handle in `out`.
func makeMix(_ preset: PresetHandle, _ options: UnsafeRawPointer?, defaultLayout: ChannelLayout, origin: ContentOrigin,
             _ out: UnsafeMutablePointer<OpaquePointer?>, function: String) -> Int32 {
    var failure = Result.argument
    guard let chosen = settings(options, defaultLayout: defaultLayout, failure: &failure) else { return failure.rawValue }
    return makeMix(preset, settings: chosen, origin: origin, layoutGiven: layoutGiven(options), out, function: function)
}

/// A mixer of `preset` with settings already read, as a new handle in `out`.
func makeMix(_ preset: PresetHandle, settings chosen: (MixSettings, PlaybackRange), origin: ContentOrigin, layoutGiven: Bool,
             _ out: UnsafeMutablePointer<OpaquePointer?>, function: String) -> Int32 {
    let (base, range) = chosen
    do {
        // A layout left to its default is the engine's when the mix becomes a voice.
        out.pointee = Handles.make(MixBox(try SessionContent(preset: preset, settings: base, range: range, origin: origin, layoutChosen: layoutGiven)))
        return Result.ok.rawValue
    } catch {
        return Result.data.failing("\(function): \(error)")
    }
}

@_cdecl("pulsar_mix_from_pattern")
public func pulsar_mix_from_pattern(_ pattern: OpaquePointer?, _ options: UnsafeRawPointer?,
                                    _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let out else { return Result.argument.failing("pulsar_mix_from_pattern: out is NULL") }
    out.pointee = nil
    guard let box = Handles.object(pattern, as: PatternBox.self) else { return Result.argument.failing("pulsar_mix_from_pattern: not a live pulsar_pattern") }
    var failure = Result.argument
    guard let (base, range) = settings(options, defaultLayout: .haptic, failure: &failure) else { return failure.rawValue }
    // As every front end makes one (ContentInput): through the actuator's laws (a .haptic clip's
    // values), its raw clip kept for a burst model.
    var device = ContentDevice(rate: base.sampleRate)
    (device.profile, device.actuator) = (base.profile, base.actuator)
    let preset = ContentInput.preset(of: box.loaded, named: "pattern", device: device)
    return makeMix(preset, settings: (base, range), origin: box.origin, layoutGiven: layoutGiven(options), out, function: "pulsar_mix_from_pattern")
}

@_cdecl("pulsar_mix_from_preset")
public func pulsar_mix_from_preset(_ bundle: OpaquePointer?, _ presetID: UnsafePointer<CChar>?, _ options: UnsafeRawPointer?,
                                   _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let out else { return Result.argument.failing("pulsar_mix_from_preset: out is NULL") }
    out.pointee = nil
    guard let box = Handles.object(bundle, as: BundleBox.self) else { return Result.argument.failing("pulsar_mix_from_preset: not a live pulsar_bundle") }
    guard let id = text(presetID) else { return Result.argument.failing("pulsar_mix_from_preset: the preset id is NULL or not UTF-8") }
    guard let preset = box.bundle.preset(id: id) else {
        let ids = MessageText.excerpt(box.bundle.presets.map(\.id).joined(separator: ", "), limit: 120)
        return Result.notFound.failing("pulsar_mix_from_preset: \(MessageText.excerpt(box.bundle.path)) has no preset \(echoed(id)) (it has \(ids))")
    }
    var failure = Result.argument
    guard var chosen = settings(options, defaultLayout: .mix, failure: &failure) else { return failure.rawValue }
    if !namesDevice(options) {
        // The preset's own actuator (its manifest's), as every front end takes it (ContentDevice).
        var device = ContentDevice(rate: chosen.0.sampleRate)
        device.gain = hapticGainGiven(options)
        var warnings: [ContentWarning] = []
        do {
            device = try device.applying(preset, warnings: &warnings)
        } catch {
            return error.libraryResult.failing("pulsar_mix_from_preset: \(error.description)")
        }
        if device.actuator != nil { (chosen.0.actuator, chosen.0.profile) = (device.actuator, device.profile) }
    }
    return makeMix(preset, settings: chosen, origin: .file(path: absolutePath(box.bundle.path), preset: id), layoutGiven: layoutGiven(options),
                   out, function: "pulsar_mix_from_preset")
}

@_cdecl("pulsar_mix_frames")
public func pulsar_mix_frames(_ mix: OpaquePointer?) -> Int64 {
    guard let box = Handles.object(mix, as: MixBox.self) else { return Int64(Result.argument.failing("pulsar_mix_frames: not a live pulsar_mix")) }
    return box.mixer.timeline.isEndless ? -1 : box.mixer.frameCount
}

@_cdecl("pulsar_mix_channels")
public func pulsar_mix_channels(_ mix: OpaquePointer?) -> Int32 {
    guard let box = Handles.object(mix, as: MixBox.self) else { return Result.argument.failing("pulsar_mix_channels: not a live pulsar_mix") }
    return Int32(box.mixer.channelCount)
}

@_cdecl("pulsar_mix_sample_rate")
public func pulsar_mix_sample_rate(_ mix: OpaquePointer?) -> Int32 {
    guard let box = Handles.object(mix, as: MixBox.self) else { return Result.argument.failing("pulsar_mix_sample_rate: not a live pulsar_mix") }
    return Int32(box.mixer.settings.sampleRate.hertz)
}

@_cdecl("pulsar_mix_render")
public func pulsar_mix_render(_ mix: OpaquePointer?, _ fromFrame: Int64, _ buffer: UnsafeMutablePointer<Float>?, _ frames: Int64) -> Int32 {
    guard let box = Handles.object(mix, as: MixBox.self) else { return Result.argument.failing("pulsar_mix_render: not a live pulsar_mix") }
    guard let buffer else { return Result.argument.failing("pulsar_mix_render: the buffer is NULL") }
    let most = Int64(Int32.max) / Int64(box.mixer.channelCount)
    guard frames >= 0, frames <= most else {
        return Result.argument.failing("pulsar_mix_render: frames \(frames) is out of range: 0...\(most) (2^31 - 1 samples in all)")
    }
    guard fromFrame >= -Limits.maximumFrames, fromFrame <= Limits.maximumFrames else {
        return Result.argument.failing("pulsar_mix_render: from_frame \(fromFrame) is beyond 24 h")
    }
    box.lock.lock()
    defer { box.lock.unlock() }
    do {
        _ = try box.mixer.render(into: UnsafeMutableBufferPointer(start: buffer, count: Int(frames) * box.mixer.channelCount),
                                 from: TimelineFrame(fromFrame))
        return Result.ok.rawValue
    } catch {
        return Result.data.failing("pulsar_mix_render: \(error)")
    }
}

@_cdecl("pulsar_mix_write_wav")
public func pulsar_mix_write_wav(_ mix: OpaquePointer?, _ path: UnsafePointer<CChar>?) -> Int32 {
    guard let box = Handles.object(mix, as: MixBox.self) else { return Result.argument.failing("pulsar_mix_write_wav: not a live pulsar_mix") }
    guard let path = text(path) else { return Result.argument.failing("pulsar_mix_write_wav: the path is NULL or not UTF-8") }
    guard !box.mixer.timeline.isEndless else { return Result.argument.failing("pulsar_mix_write_wav: an endless loop has no end to write") }
    box.lock.lock()
    defer { box.lock.unlock() }
    do {
        let container = WAVExporter.Container(forOutput: path, layout: box.mixer.settings.layout)
        _ = try WAVExporter(container: container).export(box.mixer, to: path)
        return Result.ok.rawValue
    } catch {
        return (error.side == .output ? Result.io : Result.data).failing("pulsar_mix_write_wav: \(error)")
    }
}

@_cdecl("pulsar_mix_free")
public func pulsar_mix_free(_ mix: OpaquePointer?) {
    Handles.free(mix, as: MixBox.self, "pulsar_mix_free", kind: "pulsar_mix")
}
