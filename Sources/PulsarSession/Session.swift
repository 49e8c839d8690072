import PulsarAudio
import PulsarCore
import PulsarEngine
import PulsarSimulation

/// A session: an engine on its device (or two), the voices made on it, what the simulated devices
/// record and the event log. The one place a front end — the CLI, the C API, an app — sets up,
/// plays and ends a session.
///
///     let session = try Session(device: "sim")
///     let voice = try session.voice(SessionContent.preset(inBundle: "demo.pulsar"))
///     _ = voice.play()
///     while !voice.hasEnded { session.poll(); usleep(10_000) }
///     try session.stop()
///
/// Thread rules: every member is for one control thread at a time (the caller serialises), never
/// the engine's real-time thread. `stop` joins the real-time thread.
public final class Session {
    /// The engine and its devices, as opened.
    private let opened: SessionEngine
    public var engine: HapticEngine { opened.engine }
    /// The main device and its short name (`sim`, `default`, an ALSA name).
    public var device: OutputDevice { opened.device }
    public var name: String { opened.name }
    /// The haptic device of two, its short name and its channels' layout.
    public var hapticDevice: OutputDevice? { opened.hapticDevice }
    public var hapticName: String? { opened.hapticName }
    public let hapticLayout: ChannelLayout?
    /// The main device's layout, when the session was opened with one: content whose layout was
    /// left to its default plays in it (`SessionContent.inLayout`).
    public let layout: ChannelLayout?
    /// The event log written at `stop`, when one was asked for.
    public let log: SessionLog?
    private let recordings: [(device: SimulatedDevice, path: String, channels: Int)]
    private let rate: SampleRate
    public private(set) var isStopped = false

    /// Opens `request`'s devices and an engine on them, not started, on `clock` (default: the
    /// system's, a simulated device recording what its spec asks); `fallback`, when
    /// given, lets `auto` fall back to the simulated device and is told why. Without `logPath` the
    /// engine keeps no events unless `keepsEvents` says so: a session of any length stays in
    /// bounded memory.
    public init(_ request: SessionEngine.Request, logPath: String? = nil, keepsEvents: Bool? = nil,
                clock: SessionClock = SessionClock(), fallback: ((DeviceError) -> Void)? = nil, layout: ChannelLayout? = nil) throws(SessionError) {
        let made = try SessionEngine(request, clock: clock, fallback: fallback)
        opened = made
        self.layout = layout
        hapticLayout = request.haptic?.layout
        rate = request.sampleRate
        var recordings: [(SimulatedDevice, String, Int)] = []
        if let path = request.main.recordPath, let sim = made.device as? SimulatedDevice { recordings.append((sim, path, made.engine.mainChannels)) }
        if let haptic = request.haptic, let path = haptic.spec.recordPath, let sim = made.hapticDevice as? SimulatedDevice {
            recordings.append((sim, path, made.engine.hapticDeviceConfiguration?.channels ?? haptic.layout.channelCount))
        }
        self.recordings = recordings.map { (device: $0.0, path: $0.1, channels: $0.2) }
        log = logPath.map { SessionLog(path: $0) }
        engine.keepsEventLog = keepsEvents ?? (logPath != nil)
    }

    /// A session on the device `device` names (`DeviceSpec`: `auto`, `sim`, an ALSA name …) with
    /// `layout`'s channels at `sampleRate`, the policy's period, buffer and voice limit; started.
    /// The defaults are every front end's: `auto` (PipeWire's default sink, else ALSA `default`),
    /// the haptic channel alone, 48 kHz.
    public convenience init(device: String = "auto", layout: ChannelLayout = .haptic, sampleRate: Int = 48_000,
                            logPath: String? = nil) throws(SessionError) {
        guard let rate = SampleRate(sampleRate) else { throw SessionError(.usage, "sample rate \(sampleRate) is not in 8000...192000") }
        let spec = try DeviceSpec(parsing: device, rate: rate)
        let period = SessionPolicy.defaultPeriod(simulated: spec.isSimulated)
        try self.init(SessionEngine.Request(main: spec, sampleRate: rate, channels: layout.channelCount, periodFrames: period,
                                            bufferFrames: period * SessionPolicy.defaultBufferPeriods), logPath: logPath, layout: layout)
        start()
    }

    /// Starts the engine's real-time thread.
    public func start() { engine.start() }

    /// A new voice playing `content`, stopped until its `play` (see `HapticEngine.makeVoice`:
    /// a voice past the limit steals the lowest-priority one). Logged when the session logs.
    public func voice(_ content: SessionContent, priority: Int = 0, realtime: Bool = false) throws(VoiceError) -> HapticVoice {
        let content = try inSessionLayout(content)
        let voice = try engine.makeVoice(content.mixer, priority: priority, animationFrameRate: content.animationFrameRate,
                                         mode: realtime ? .realtime : .pattern)
        log?.made(voice, content: content, priority: priority, mode: realtime ? .realtime : .pattern)
        return voice
    }

    /// Takes in what the real-time thread reported (voices ended, completions called here).
    public func poll() { engine.poll() }

    /// The engine's clock: the instant every command's time and every clock reading is on.
    public var time: MonotonicTime { engine.now() }

    /// No voice playing and no command waiting.
    public var isIdle: Bool { engine.activeVoices.isEmpty && !engine.hasPendingCommands }

    /// What the devices played, as the log's header counts it.
    public var played: (main: FrameIndex, haptic: FrameIndex?) {
        (PlayedFrames.main(engine, recorder: PlayedFrames.recorder(device)),
         hapticDevice.map { PlayedFrames.haptic(engine, recorder: PlayedFrames.recorder($0)) })
    }

    /// Stops the engine (the real-time thread joined) once; false when it was already stopped.
    @discardableResult
    public func halt() -> Bool {
        guard !isStopped else { return false }
        isStopped = true
        engine.poll()
        engine.shutdown()
        engine.poll()
        return true
    }

    /// Stops the engine, then writes what the simulated devices recorded and the event log.
    /// Does nothing the second time.
    public func stop() throws(SessionError) {
        guard halt() else { return }
        try writeRecordings()
        try writeLog()
    }

    /// Writes what the simulated devices asked to record (`record=OUT.wav`) played.
    public func writeRecordings() throws(SessionError) {
        for r in recordings {
            do {
                _ = try WAVExporter().export(r.device.recording, to: r.path, sampleRate: rate, channels: r.channels)
            } catch {
                throw SessionError(.io, "cannot write the recording: \(error)")
            }
        }
    }

    /// Writes the event log, when the session keeps one.
    public func writeLog() throws(SessionError) {
        guard let log else { return }
        do {
            try log.write(engine: engine, played: played, hapticLayout: hapticLayout?.name)
        } catch {
            throw SessionError(.io, "cannot write the event log: \(error)")
        }
    }
}

extension Session {
    /// `content` in this session's layout when its own was left to its default.
    func inSessionLayout(_ content: SessionContent) throws(VoiceError) -> SessionContent {
        guard let layout else { return content }
        do {
            return try content.inLayout(layout)
        } catch {
            throw .unsupported(.unsupported("the content in the session's layout \(layout.name): \(error.description)"))
        }
    }
}
