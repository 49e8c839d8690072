import Glibc
import PulsarALSA
import PulsarAudio
import PulsarCore
import PulsarEngine
import PulsarSession
import PulsarSimulation

/// What a `pulsar_engine` holds: the session (the engine on its device, and a haptic device's;
/// what a simulated device records; the event log) and the lock that makes the engine's control
/// side (poll, making voices, clock queries) callable from any C thread.
final class EngineBox {
    let session: Session
    /// The main device's layout: a voice's mix whose layout was not given is played in it.
    let layout: ChannelLayout
    var engine: HapticEngine { session.engine }
    /// Recursive: a completion callback, called from `pulsar_engine_poll` under it, may query
    /// its voice or the engine.
    let lock = Lock(recursive: true)
    var stopped: Bool { session.isStopped }
    /// Voices whose playback has not ended, kept for their completion callbacks even when their
    /// handles are freed (a fire-and-forget effect still reports). Under `lock`.
    var pending: [ObjectIdentifier: VoiceBox] = [:]

    init(session: Session, layout: ChannelLayout) {
        self.session = session
        self.layout = layout
    }

    /// Stops the real-time thread (joined) and writes the recordings and the log; the first failure.
    func stop() -> (Result, String)? {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else { return nil }
        defer { pending.removeAll() }
        do throws(SessionError) {
            try session.stop()
        } catch {
            return (.io, "pulsar_engine_stop: \(error)")
        }
        return nil
    }

    deinit { _ = stop() }
}

/// What a `pulsar_voice` holds: the voice, its engine, and the C completion callback.
final class VoiceBox {
    let voice: HapticVoice
    let engine: EngineBox
    var callback: (@convention(c) (OpaquePointer?, Int32, UnsafeMutableRawPointer?) -> Void)?
    var context: UnsafeMutableRawPointer?
    /// The handle the callback is given (set once the box has one).
    var handle: OpaquePointer?

    init(voice: HapticVoice, engine: EngineBox) {
        self.voice = voice
        self.engine = engine
    }
}

/// `pulsar_engine_options` (include/pulsar.h), as C lays it out.
struct CEngineOptions {
    var size: Int
    var device: UnsafePointer<CChar>?
    var layout: UnsafePointer<CChar>?
    var sampleRate: Int32
    var periodFrames: Int32
    var bufferFrames: Int32
    var voiceLimit: Int32
    var hapticDevice: UnsafePointer<CChar>?
    var hapticLayout: UnsafePointer<CChar>?
    var latencyMs: Double
    var hapticLatencyMs: Double
    var logPath: UnsafePointer<CChar>?
}

/// The size of `pulsar_engine_options` in 0.1.0, before `log_path`: a caller built then passes it.
let engineOptionsSizeBeforeLog = MemoryLayout<CEngineOptions>.offset(of: \CEngineOptions.logPath)!

/// Seconds of recording a simulated device keeps (reserved when it is made).
let recordingSeconds = 120

/// The device `name` says (the session layer's reading of it); a simulated one that records
/// keeps `recordingSeconds` of what it plays.
func deviceSpec(named name: String, rate: SampleRate) throws(SessionError) -> DeviceSpec {
    var spec = try DeviceSpec(parsing: name, rate: rate)
    if case .simulated(var sim) = spec, sim.record != nil {
        sim.behaviour.recordingCapacity = recordingSeconds * rate.hertz
        spec = .simulated(sim)
    }
    return spec
}

@_cdecl("pulsar_engine_create")
public func pulsar_engine_create(_ options: UnsafeRawPointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let out else { return Result.argument.failing("pulsar_engine_create: out is NULL") }
    out.pointee = nil
    var o = CEngineOptions(size: MemoryLayout<CEngineOptions>.size, device: nil, layout: nil, sampleRate: 0, periodFrames: 0, bufferFrames: 0,
                           voiceLimit: 0, hapticDevice: nil, hapticLayout: nil, latencyMs: 0, hapticLatencyMs: 0, logPath: nil)
    if let options {
        // Only the members the caller's struct has: a smaller (older) one leaves the rest default.
        let size = options.load(as: UInt.self)  // a size_t: any value, however large
        guard size >= engineOptionsSizeBeforeLog else {
            return Result.argument.failing("pulsar_engine_options: size \(size) is less than sizeof(pulsar_engine_options): use PULSAR_ENGINE_OPTIONS_INIT")
        }
        withUnsafeMutableBytes(of: &o) { $0.copyMemory(from: UnsafeRawBufferPointer(start: options, count: Int(min(size, UInt(MemoryLayout<CEngineOptions>.size))))) }
    }
    func string(_ p: UnsafePointer<CChar>?, _ fallback: String, _ what: String) -> String?? {
        guard let p else { return .some(fallback) }
        guard let s = text(p) else { _ = Result.argument.failing("pulsar_engine_options: \(what) is not UTF-8"); return .none }
        return .some(s)
    }
    guard let deviceName = string(o.device, "auto", "device"), let layoutName = string(o.layout, "haptic", "layout") else { return Result.argument.rawValue }
    guard let rate = o.sampleRate == 0 ? SampleRate(48_000) : SampleRate(Int(o.sampleRate)) else {
        return Result.argument.failing("pulsar_engine_options: sample_rate \(o.sampleRate) is not in 8000...192000")
    }
    guard let layout = ChannelLayout(parsing: layoutName!) else { return Result.argument.failing("pulsar_engine_options: layout \(echoed(layoutName!)) is not a layout") }
    guard o.latencyMs.isFinite, o.hapticLatencyMs.isFinite, SessionPolicy.latencyMillisecondsRange.contains(o.latencyMs), SessionPolicy.latencyMillisecondsRange.contains(o.hapticLatencyMs) else {
        return Result.argument.failing("pulsar_engine_options: latencies are 0…1000 ms")
    }
    let mainSpec: DeviceSpec
    do throws(SessionError) {
        mainSpec = try deviceSpec(named: deviceName!, rate: rate)
    } catch {
        return Result.argument.failing("pulsar_engine_options: device \(error)")
    }
    let period = o.periodFrames == 0 ? SessionPolicy.defaultPeriod(simulated: mainSpec.isSimulated) : Int(o.periodFrames)
    let buffer = o.bufferFrames == 0 ? period * SessionPolicy.defaultBufferPeriods : Int(o.bufferFrames)
    guard SessionPolicy.periodRange.contains(period), SessionPolicy.bufferRange(period: period).contains(buffer) else {
        return Result.argument.failing("pulsar_engine_options: period_frames is 16…16384 and buffer_frames 2…64 periods")
    }
    var logPath: String?
    if let p = o.logPath {
        guard let path = text(p), !path.isEmpty else { return Result.argument.failing("pulsar_engine_options: log_path is empty or not UTF-8") }
        logPath = path
    }
    let voices = o.voiceLimit == 0 ? SessionPolicy.defaultVoiceLimit : Int(o.voiceLimit)
    guard SessionPolicy.voiceLimitRange.contains(voices) else { return Result.argument.failing("pulsar_engine_options: voice_limit is 1…128") }
    var haptic: (spec: DeviceSpec, layout: ChannelLayout)?
    if let p = o.hapticDevice {
        guard let name = text(p) else { return Result.argument.failing("pulsar_engine_options: haptic_device is not UTF-8") }
        guard name != deviceName! else { return Result.argument.failing("pulsar_engine_options: haptic_device is the device: sound and touch need two") }
        guard let hLayoutName = string(o.hapticLayout, "haptic", "haptic_layout"), let hLayout = ChannelLayout(parsing: hLayoutName!), hLayout.usesHaptics else {
            return Result.argument.failing("pulsar_engine_options: haptic_layout must be a layout with a haptic channel")
        }
        do throws(SessionError) {
            haptic = (try deviceSpec(named: name, rate: rate), hLayout)
        } catch {
            return Result.argument.failing("pulsar_engine_options: haptic_device \(error)")
        }
    }
    let request = SessionEngine.Request(main: mainSpec, haptic: haptic, sampleRate: rate, channels: layout.channelCount, periodFrames: period,
                                        bufferFrames: buffer, voiceLimit: voices, latency: (o.latencyMs / 1000, o.hapticLatencyMs / 1000))
    let session: Session
    do throws(SessionError) {
        // No fallback for `auto`: an app asked for sound, and a silent simulated device would hide that it has none.
        session = try Session(request, logPath: logPath)
    } catch {
        return (error.kind == .device ? Result.device : Result.argument).failing("pulsar_engine_create: device \(echoed(deviceName!)): \(error)")
    }
    session.start()
    out.pointee = Handles.make(EngineBox(session: session, layout: layout))
    return Result.ok.rawValue
}

@_cdecl("pulsar_engine_poll")
public func pulsar_engine_poll(_ engine: OpaquePointer?) -> Int32 {
    guard let box = Handles.object(engine, as: EngineBox.self) else { return Result.argument.failing("pulsar_engine_poll: not a live pulsar_engine") }
    box.lock.lock()
    box.session.poll()
    let failure = box.engine.failure
    box.lock.unlock()
    if let failure { return Result.device.failing("pulsar_engine_poll: the device failed: \(failure)") }
    return Result.ok.rawValue
}

@_cdecl("pulsar_engine_time")
public func pulsar_engine_time(_ engine: OpaquePointer?) -> Double {
    guard let box = Handles.object(engine, as: EngineBox.self) else { _ = Result.argument.failing("pulsar_engine_time: not a live pulsar_engine"); return .nan }
    return Double(box.engine.now().nanoseconds) / 1e9
}

@_cdecl("pulsar_engine_is_idle")
public func pulsar_engine_is_idle(_ engine: OpaquePointer?) -> Int32 {
    guard let box = Handles.object(engine, as: EngineBox.self) else { return Result.argument.failing("pulsar_engine_is_idle: not a live pulsar_engine") }
    box.lock.lock()
    defer { box.lock.unlock() }
    return box.session.isIdle ? 1 : 0
}

@_cdecl("pulsar_engine_set_master_gain")
public func pulsar_engine_set_master_gain(_ engine: OpaquePointer?, _ value: Double, _ seconds: Double) -> Int32 {
    guard let box = Handles.object(engine, as: EngineBox.self) else { return Result.argument.failing("pulsar_engine_set_master_gain: not a live pulsar_engine") }
    if let code = refusal("pulsar_engine_set_master_gain", { () throws(RangeError) in
        _ = try Limits.number(value, "value", in: Limits.gain)
        _ = try Limits.seconds(seconds, "seconds")
    }) { return code }
    return box.engine.setMasterHapticGain(value, over: seconds) ? 0 : Result.busy.failing("pulsar_engine_set_master_gain: the command queue is full")
}

@_cdecl("pulsar_engine_stop")
public func pulsar_engine_stop(_ engine: OpaquePointer?) -> Int32 {
    guard let box = Handles.object(engine, as: EngineBox.self) else { return Result.argument.failing("pulsar_engine_stop: not a live pulsar_engine") }
    if let (code, message) = box.stop() { return code.failing(message) }
    return Result.ok.rawValue
}

@_cdecl("pulsar_engine_free")
public func pulsar_engine_free(_ engine: OpaquePointer?) {
    // Stopped now, whatever voice handles still hold the box: their commands then fail.
    if let box = Handles.object(engine, as: EngineBox.self) { _ = box.stop() }
    Handles.free(engine, as: EngineBox.self, "pulsar_engine_free", kind: "pulsar_engine")
}

@_cdecl("pulsar_engine_voice")
public func pulsar_engine_voice(_ engine: OpaquePointer?, _ mix: OpaquePointer?, _ priority: Int32, _ realtime: Int32,
                                _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let out else { return Result.argument.failing("pulsar_engine_voice: out is NULL") }
    out.pointee = nil
    guard let box = Handles.object(engine, as: EngineBox.self) else { return Result.argument.failing("pulsar_engine_voice: not a live pulsar_engine") }
    guard let mixBox = Handles.object(mix, as: MixBox.self) else { return Result.argument.failing("pulsar_engine_voice: not a live pulsar_mix") }
    box.lock.lock()
    defer { box.lock.unlock() }
    guard !box.stopped else { return Result.state.failing("pulsar_engine_voice: the engine was stopped") }
    do {
        let content: SessionContent
        do throws(SessionError) {
            content = try mixBox.content.inLayout(box.layout)
        } catch {
            return error.libraryResult.failing("pulsar_engine_voice: the mix in the engine's layout \(box.layout.name): \(error.description)")
        }
        let voice = try box.session.voice(content, priority: Int(priority), realtime: realtime != 0)
        let voiceBox = VoiceBox(voice: voice, engine: box)
        let handle = Handles.make(voiceBox)
        voiceBox.handle = handle
        box.pending[ObjectIdentifier(voiceBox)] = voiceBox
        voice.completion = { [weak voiceBox, unowned box] finished in
            guard let voiceBox else { return }
            box.pending[ObjectIdentifier(voiceBox)] = nil
            voiceBox.callback?(voiceBox.handle, finished ? 1 : 0, voiceBox.context)
        }
        out.pointee = handle
        return Result.ok.rawValue
    } catch {
        switch error {
        case .busy: return Result.busy.failing("pulsar_engine_voice: \(error)")
        case .full: return Result.busy.failing("pulsar_engine_voice: \(error)")
        case .unsupported: return Result.argument.failing("pulsar_engine_voice: \(error) (a mix plays on an engine of its rate and its layout's channels)")
        }
    }
}

@_cdecl("pulsar_voice_free")
public func pulsar_voice_free(_ voice: OpaquePointer?) {
    guard let box = Handles.object(voice, as: VoiceBox.self) else {
        if voice != nil { _ = Result.argument.failing("pulsar_voice_free: not a live pulsar_voice (freed twice?)") }
        return
    }
    // The callback stays: it runs with a NULL voice once the playback ends.
    box.engine.lock.lock()
    box.handle = nil
    box.engine.lock.unlock()
    Handles.release(voice, as: VoiceBox.self)
}

/// The voice behind `handle` and `command`'s result as a code (false: the voice has ended or the
/// queue is full).
func voiceCommand(_ handle: OpaquePointer?, _ function: String, _ command: (HapticVoice) -> Bool) -> Int32 {
    guard let box = Handles.object(handle, as: VoiceBox.self) else { return Result.argument.failing("\(function): not a live pulsar_voice") }
    box.engine.lock.lock()
    let stopped = box.engine.stopped
    box.engine.lock.unlock()
    if stopped { return Result.state.failing("\(function): its engine was stopped or freed") }
    if command(box.voice) { return Result.ok.rawValue }
    box.engine.lock.lock()
    let ended = box.voice.hasEnded
    box.engine.lock.unlock()
    return ended ? Result.state.failing("\(function): the voice has ended (played out, stopped or stolen)")
        : Result.busy.failing("\(function): the command queue is full; poll and try again")
}

/// Checks the arguments of `function` against `Limits` (the script's ranges): the refusal as a
/// code, or nil when they fit.
func refusal(_ function: String, _ check: () throws(RangeError) -> Void) -> Int32? {
    do throws(RangeError) {
        try check()
        return nil
    } catch {
        return Result.argument.failing("\(function): \(error)")
    }
}

/// An engine time (s) a command may be scheduled at: not before the engine's start, at most 24 h
/// ahead of now.
func checkEngineTime(_ t: Double, _ what: String, now: Double) throws(RangeError) {
    guard t.isFinite, t >= 0 else { throw RangeError(what, t, .valueOutOfRange, "must be an engine time in seconds (pulsar_engine_time)") }
    _ = try Limits.seconds(max(t - now, 0), "\(what) − now")
}

@_cdecl("pulsar_voice_play")
public func pulsar_voice_play(_ voice: OpaquePointer?, _ fromMs: Double) -> Int32 {
    if let code = refusal("pulsar_voice_play", { () throws(RangeError) in _ = try Limits.timelineMilliseconds(fromMs, "from_ms") }) { return code }
    return voiceCommand(voice, "pulsar_voice_play") { $0.send(.play(fromTimelineFrame: $0.timelineFrame(atMs: fromMs))) }
}

@_cdecl("pulsar_voice_play_at")
public func pulsar_voice_play_at(_ voice: OpaquePointer?, _ engineTime: Double) -> Int32 {
    guard let box = Handles.object(voice, as: VoiceBox.self) else { return Result.argument.failing("pulsar_voice_play_at: not a live pulsar_voice") }
    let now = Double(box.engine.engine.now().nanoseconds) / 1e9
    if let code = refusal("pulsar_voice_play_at", { () throws(RangeError) in try checkEngineTime(engineTime, "time", now: now) }) { return code }
    return voiceCommand(voice, "pulsar_voice_play_at") { $0.play(at: MonotonicTime(nanoseconds: Int64(engineTime * 1e9))) }
}

@_cdecl("pulsar_voice_pause")
public func pulsar_voice_pause(_ voice: OpaquePointer?) -> Int32 { voiceCommand(voice, "pulsar_voice_pause") { $0.pause() } }

@_cdecl("pulsar_voice_resume")
public func pulsar_voice_resume(_ voice: OpaquePointer?) -> Int32 { voiceCommand(voice, "pulsar_voice_resume") { $0.resume() } }

@_cdecl("pulsar_voice_stop")
public func pulsar_voice_stop(_ voice: OpaquePointer?) -> Int32 { voiceCommand(voice, "pulsar_voice_stop") { $0.stop() } }

@_cdecl("pulsar_voice_seek")
public func pulsar_voice_seek(_ voice: OpaquePointer?, _ toMs: Double) -> Int32 {
    if let code = refusal("pulsar_voice_seek", { () throws(RangeError) in _ = try Limits.timelineMilliseconds(toMs, "to_ms") }) { return code }
    return voiceCommand(voice, "pulsar_voice_seek") { $0.seek(toMs: toMs) }
}

@_cdecl("pulsar_voice_set_intensity")
public func pulsar_voice_set_intensity(_ voice: OpaquePointer?, _ value: Double, _ seconds: Double) -> Int32 {
    if let code = refusal("pulsar_voice_set_intensity", { () throws(RangeError) in
        _ = try Limits.number(value, "value", in: Limits.gain)
        _ = try Limits.seconds(seconds, "seconds")
    }) { return code }
    return voiceCommand(voice, "pulsar_voice_set_intensity") { $0.setIntensity(value, over: seconds) }
}

@_cdecl("pulsar_voice_set_sharpness")
public func pulsar_voice_set_sharpness(_ voice: OpaquePointer?, _ value: Double, _ seconds: Double) -> Int32 {
    if let code = refusal("pulsar_voice_set_sharpness", { () throws(RangeError) in
        _ = try Limits.number(value, "value", in: Limits.sharpness)
        _ = try Limits.seconds(seconds, "seconds")
    }) { return code }
    return voiceCommand(voice, "pulsar_voice_set_sharpness") { $0.setSharpness(value, over: seconds) }
}

/// The points of `pulsar_voice_set_intensity_curve`, checked: 1…`Limits.maximumCurvePoints`
/// (the engine's limit), values 0…4, times engine times within 24 h of `now` and strictly rising.
func curvePoints(_ times: UnsafePointer<Double>?, _ values: UnsafePointer<Double>?, _ count: Int32,
                 now: Double) -> Swift.Result<[(time: MonotonicTime, value: Double)], CurveRefusal> {
    let function = "pulsar_voice_set_intensity_curve", limit = Limits.maximumCurvePoints
    guard let times, let values else { return .failure(CurveRefusal("\(function): times and values must not be NULL")) }
    guard count > 0, count <= limit else {
        return .failure(CurveRefusal("\(function): count \(count) is not in 1...\(limit) (the engine takes at most \(limit) points)"))
    }
    var points: [(time: MonotonicTime, value: Double)] = []
    for i in 0..<Int(count) {
        if let code = refusal(function, { () throws(RangeError) in
            _ = try Limits.number(values[i], "point \(i)'s value", in: Limits.gain)
            try checkEngineTime(times[i], "point \(i)'s time", now: now)
        }) { return .failure(CurveRefusal(code: code)) }
        guard i == 0 || times[i] > times[i - 1] else {
            return .failure(CurveRefusal("\(function): point \(i)'s time \(times[i]) is not after point \(i - 1)'s \(times[i - 1]): times must rise strictly"))
        }
        points.append((MonotonicTime(nanoseconds: Int64(times[i] * 1e9)), values[i]))
    }
    return .success(points)
}

/// Why a curve was refused: the code, its message already the thread's last error.
struct CurveRefusal: Error {
    let code: Int32
    init(code: Int32) { self.code = code }
    init(_ message: String) { code = Result.argument.failing(message) }
}

@_cdecl("pulsar_voice_set_intensity_curve")
public func pulsar_voice_set_intensity_curve(_ voice: OpaquePointer?, _ times: UnsafePointer<Double>?, _ values: UnsafePointer<Double>?, _ count: Int32) -> Int32 {
    let now = Handles.object(voice, as: VoiceBox.self).map { Double($0.engine.engine.now().nanoseconds) / 1e9 } ?? 0
    let points: [(time: MonotonicTime, value: Double)]
    switch curvePoints(times, values, count, now: now) {
    case .success(let checked): points = checked
    case .failure(let refusal): return refusal.code
    }
    if let box = Handles.object(voice, as: VoiceBox.self), box.engine.engine.streamFrame(at: box.engine.engine.now()) == nil {
        return Result.state.failing("pulsar_voice_set_intensity_curve: the device clock has no reading yet: poll the engine first")
    }
    return voiceCommand(voice, "pulsar_voice_set_intensity_curve") { $0.setIntensityCurve(points) }
}

@_cdecl("pulsar_voice_set_content_time")
public func pulsar_voice_set_content_time(_ voice: OpaquePointer?, _ ms: Double) -> Int32 {
    guard let box = Handles.object(voice, as: VoiceBox.self) else { return Result.argument.failing("pulsar_voice_set_content_time: not a live pulsar_voice") }
    guard box.voice.mode == .realtime else { return Result.state.failing("pulsar_voice_set_content_time: the voice was not made realtime") }
    if let code = refusal("pulsar_voice_set_content_time", { () throws(RangeError) in _ = try Limits.contentMilliseconds(ms, "ms") }) { return code }
    return voiceCommand(voice, "pulsar_voice_set_content_time") { $0.setContentTime(ms) }
}

@_cdecl("pulsar_voice_content_ms")
public func pulsar_voice_content_ms(_ voice: OpaquePointer?) -> Double {
    guard let box = Handles.object(voice, as: VoiceBox.self) else { _ = Result.argument.failing("pulsar_voice_content_ms: not a live pulsar_voice"); return .nan }
    box.engine.lock.lock()
    defer { box.engine.lock.unlock() }
    return box.voice.contentTime(at: box.engine.engine.now()) ?? .nan
}

@_cdecl("pulsar_voice_animation_frame")
public func pulsar_voice_animation_frame(_ voice: OpaquePointer?) -> Double {
    guard let box = Handles.object(voice, as: VoiceBox.self) else { _ = Result.argument.failing("pulsar_voice_animation_frame: not a live pulsar_voice"); return .nan }
    box.engine.lock.lock()
    defer { box.engine.lock.unlock() }
    return box.voice.animationFrame(at: box.engine.engine.now()) ?? .nan
}

@_cdecl("pulsar_voice_has_ended")
public func pulsar_voice_has_ended(_ voice: OpaquePointer?) -> Int32 {
    guard let box = Handles.object(voice, as: VoiceBox.self) else { return Result.argument.failing("pulsar_voice_has_ended: not a live pulsar_voice") }
    box.engine.lock.lock()
    defer { box.engine.lock.unlock() }
    return box.voice.hasEnded || box.engine.stopped ? 1 : 0
}

@_cdecl("pulsar_voice_on_completion")
public func pulsar_voice_on_completion(_ voice: OpaquePointer?, _ callback: (@convention(c) (OpaquePointer?, Int32, UnsafeMutableRawPointer?) -> Void)?,
                                       _ context: UnsafeMutableRawPointer?) -> Int32 {
    guard let box = Handles.object(voice, as: VoiceBox.self) else { return Result.argument.failing("pulsar_voice_on_completion: not a live pulsar_voice") }
    box.engine.lock.lock()
    box.callback = callback
    box.context = context
    box.engine.lock.unlock()
    return Result.ok.rawValue
}
