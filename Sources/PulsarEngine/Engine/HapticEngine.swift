#if canImport(Glibc)
import Glibc
#endif
import CWakeup
import PulsarAudio
import PulsarCore
import Synchronization

/// One output device, its real-time thread, and any number of voices mixed into it (Core
/// Haptics' `CHHapticEngine` with its players). A voice (`HapticVoice`) plays a pattern or a
/// preset with everything a player has — play, pause, resume, stop, seek, cue, loops, segments,
/// offsets, haptics on/off and gains — each at an effective device frame; voices overlap freely
/// and end by themselves. When `voiceLimit` voices play, a new one steals the lowest-priority,
/// oldest one, which fades out over 1 ms; the log says so.
///
/// The real-time thread runs `EngineCore.step()` once a period (or, with `wake: .device`, when
/// the device's poll descriptors say it wants a period) and at once when a command arrives (an
/// eventfd the senders ring); the control thread drains its events with `poll()`, which feeds
/// the device clock, every voice's track, the event log and the completion handlers.
///
/// Thread rules: commands and live changes from any thread but the real-time one — they
/// serialise on a lock the real-time thread never takes, then cross to it through a lock-free
/// queue. Create, `poll`, make voices and query from one control thread. The real-time thread is
/// the engine's own; it never allocates, locks, prints or does I/O other than the device's.
public final class HapticEngine: @unchecked Sendable {
    /// The real-time side. Private: its command queue takes one producer at a time, which only
    /// this class's lock guarantees.
    private let core: EngineCore
    /// Every event except positions, in order (the event log's body); empty while
    /// `keepsEventLog` is false.
    public private(set) var loggedEvents: [EngineEvent] = []
    /// Whether `poll` keeps events in `loggedEvents` (the default). An app that writes no log
    /// sets it false: the engine's memory then stays bounded however long it runs (underruns,
    /// lost events and the voices' own state are kept either way). Control thread only.
    public var keepsEventLog = true
    /// Called on the control thread (from `poll`) with every event of the real-time thread —
    /// position readings (in stream frames) and underruns among them — before the device clock
    /// and the voices take it in: a listener can ask `streamFrame(at:)` what the clock predicted
    /// for a reading's instant.
    public var onEvent: ((EngineEvent) -> Void)?
    /// The device error that stopped the real-time thread, if any.
    public private(set) var failure: DeviceError?
    /// Underruns seen so far.
    public private(set) var underruns = 0
    /// Events the real-time thread could not queue (nobody polled for too long); non-zero
    /// means the event log is incomplete.
    public private(set) var eventsLost = 0
    /// Most voices playing at once; a new one beyond steals one (`makeVoice`).
    public let voiceLimit: Int

    private let monotonic: MonotonicClock
    /// Whether the real-time thread asks for `SCHED_FIFO` (the session's policy decides).
    public let realtime: Bool
    private let wake: WakeSource
    private let flags = Flags()
    /// Serialises command producers (the queue takes one producer at a time) and guards the
    /// voices' mixer tables' control side, the slots and the timelines the tracks have not seen.
    private let sendLock = Lock()
    /// The device clock, fed by `poll` (guarded by `sendLock`: voices read it from any thread).
    private var filter: DevicePositionFilter
    /// The haptic device's clock and the segments it read the stream by (two devices; guarded
    /// by `sendLock`).
    private var hapticClock: HapticDeviceClock?
    /// The main device's latency beyond its positions, seconds (two devices).
    private let mainLatency: Double
    /// The voices by slot, from `makeVoice` until their slot is emptied (guarded by `sendLock`).
    private var voices: [HapticVoice?]
    private var nextVoiceID = 1
    /// Commands (mix changes included) accepted by the queue (guarded by `sendLock`), and those
    /// whose effect `poll()` has seen (control thread).
    private var sentCommands = 0
    private var observedCommands = 0
    /// The real-time thread of the current run (nil when stopped), joined by `shutdown`.
    private var run: Run?

    /// An engine on `device` at `sampleRate` with `channels` channels (every voice's layout must
    /// have as many). `voiceLimit`: most voices playing at once; `EngineLimits.stealSlots` more
    /// slots hold stolen voices on their way out. `realtime`: ask for SCHED_FIFO for the real-time
    /// thread (for hardware and sound servers; a simulated device does not need it, and a FIFO
    /// thread that is slow — a debug build — would starve the machine's other threads). `wake`:
    /// what the real-time thread sleeps on between steps — a timer by default: on PipeWire's ALSA
    /// plugin the poll descriptors wake it twice a period for the same command latency
    /// (BENCHMARKS.md, wake sources).
    ///
    /// `hapticDevice`: sound on `device`, touch on that one, under `device`'s clock. The mix's
    /// last channel (its layout should end in a haptic channel, as `stereo+haptic`) goes to the
    /// haptic device's haptic channels, read at the content instant `device` is heard at; the
    /// rest go to `device`. Commands take effect where the stream is rendered to: the larger of
    /// the two devices' queues ahead.
    public convenience init(device: OutputDevice, sampleRate: SampleRate, channels: Int, monotonic: MonotonicClock = SystemMonotonicClock(),
                            periodFrames: Int = 256, bufferFrames: Int = 1024, voiceLimit: Int = 32,
                            realtime: Bool = false, wake: WakeSource = .timer, hapticDevice: HapticDeviceOutput? = nil) throws(DeviceError) {
        let limit = min(max(voiceLimit, 1), EngineLimits.maximumVoiceLimit)
        let configuration = DeviceConfiguration(sampleRate: sampleRate, channels: channels, periodFrames: periodFrames, bufferFrames: bufferFrames)
        let core = try EngineCore(device: device, clock: monotonic, configuration: configuration, slotCount: limit + EngineLimits.stealSlots, commandCapacity: 4096,
                                  hapticDevice: hapticDevice)
        self.init(core: core, voiceLimit: limit, monotonic: monotonic, realtime: realtime, wake: wake)
    }

    /// An engine over `core` (a single player's, with its voice in slot 0).
    init(core: EngineCore, voiceLimit: Int, monotonic: MonotonicClock, realtime: Bool, wake: WakeSource) {
        self.core = core
        self.voiceLimit = voiceLimit
        self.monotonic = monotonic
        self.realtime = realtime
        self.wake = wake
        voices = Array(repeating: nil, count: core.slotCount)
        filter = DevicePositionFilter(nominalRate: Double(core.configuration.sampleRate.hertz),
                                      floorsToSteps: !core.device.capabilities.exactPositions)
        mainLatency = core.feed?.output.mainLatency ?? 0
        hapticClock = core.feed.map {
            HapticDeviceClock(rate: $0.configuration.sampleRate, latency: $0.output.latency, floorsToSteps: !$0.device.capabilities.exactPositions)
        }
    }

    /// Runs `body` under the producers' lock: a pthread mutex (`Lock`), which ThreadSanitizer
    /// sees, unlike the futex inside the standard library's `Mutex`.
    func sending<T>(_ body: () throws -> T) rethrows -> T {
        sendLock.lock()
        defer { sendLock.unlock() }
        return try body()
    }

    // MARK: The real-time thread

    /// Starts a real-time thread for this run; does nothing while one runs. After `shutdown`
    /// a new thread starts from where the transports stand. Control thread.
    public func start() {
        guard run == nil else { return }
        let run = Run()
        let core = self.core, flags = self.flags, realtime = self.realtime, monotonic = self.monotonic
        let wake = self.wake
        run.thread = JoinableThread(name: "pulsar-rt") {
            if realtime {
                flags.scheduling.store(Self.requestRealtimeScheduling() ? .granted : .refused, ordering: .releasing)
            }
            Self.realtimeLoop(core: core, run: run, flags: flags, monotonic: monotonic, wake: wake)
        }
        if run.thread == nil {
            run.running.store(false, ordering: .releasing)
            flags.fail(.badState("the system refused a thread"))
        }
        self.run = run
    }

    /// Stops the real-time thread and joins it: when this returns the thread has ended and the
    /// device is no longer written. Idempotent; the device stays open until the engine goes.
    /// Control thread.
    public func shutdown() {
        guard let run else { return }
        run.running.store(false, ordering: .releasing)
        pulsar_wakeup_ring(flags.wakeup)
        run.thread?.join()
        self.run = nil
    }

    /// Stops and joins the real-time thread; the core then closes the device, once.
    deinit { shutdown() }

    /// True from `start()` until `shutdown()` or a device failure ends the thread.
    public var isRunning: Bool { run?.running.load(ordering: .acquiring) ?? false }

    /// Driven use, without `start()`: runs one step of the real-time thread on the calling
    /// thread (deterministic tests on a driven clock, offline runs). Never while started.
    public func step() throws(DeviceError) {
        precondition(run == nil, "step() drives an engine whose thread is not started")
        try core.step()
    }

    /// The configuration the device really runs at.
    public var configuration: DeviceConfiguration { core.configuration }
    /// How late the real-time thread's steps came (any thread).
    public var wakeups: WakeupStatistics { core.wakeups }
    /// Stream frames written to the device so far (read after `shutdown`, or in driven use).
    public var streamWritten: StreamFrame { core.streamWritten }
    /// Monotonic time of the first frame written (nil before); read after `shutdown`.
    public var firstWriteTime: MonotonicTime? { core.firstWriteTime }

    /// Whether the real-time thread got SCHED_FIFO (nil until it has asked, or when it was not
    /// to ask). Without the privilege it runs at normal priority: it still never blocks, but can
    /// be preempted.
    public var hasRealtimeScheduling: Bool? {
        switch flags.scheduling.load(ordering: .acquiring) {
        case .granted: return true
        case .refused: return false
        case .notAsked: return nil
        }
    }

    // MARK: Voices (control thread)

    /// A new voice playing `mixer` (which must preload its audio and have the engine's channel
    /// count), stopped until its `play`. When `voiceLimit` voices are playing, the
    /// lowest-priority one — the oldest among equals — whose priority is not above `priority`
    /// is stolen: it fades out over 1 ms and leaves. Allocates: any thread but the real-time one.
    /// - Throws: `VoiceError.unsupported` for a mixer the engine cannot play, `.full` when every
    ///   voice playing has a higher priority, `.busy` when the command queue or every spare slot
    ///   is taken (try again after `poll`).
    public func makeVoice(_ mixer: PresetMixer, priority: Int = 0, animationFrameRate: Double? = nil,
                          mode: HapticVoice.Mode = .pattern) throws(VoiceError) -> HapticVoice {
        do {
            try EngineCore.check(mixer, core.configuration)
        } catch {
            throw .unsupported(error)
        }
        // The voice's own mixer (sharing the audio and the pattern renderers): a mixer keeps the
        // haptic block it rendered last, which voices sharing one would keep taking from each other.
        let own: PresetMixer
        do {
            own = try mixer.adjusted(to: mixer.live)
        } catch {
            throw .unsupported(.unsupported("the mixer could not be copied: \(error)"))
        }
        let renderer = TransportRenderer(mixer: own)
        let realtime = mode == .realtime
            ? RealtimeTrack(synthesis: RealtimeSynthesis(pattern: own.preset.pattern, sampleRate: own.settings.sampleRate,
                                                        profile: own.settings.profile))
            : nil
        let result: Result<HapticVoice, VoiceError> = sending {
            // One pass, no copies: a burst of starts at a full engine walks every slot each time.
            var playing = 0
            var victim: HapticVoice?
            for case let v? in voices where !v.isLeaving {
                playing += 1
                if v.priority <= priority, victim.map({ (v.priority, v.id) < ($0.priority, $0.id) }) ?? true { victim = v }
            }
            if playing < voiceLimit {
                victim = nil
            } else if victim == nil {
                return .failure(.full)
            }
            guard let slot = voices.firstIndex(where: { $0 == nil }) else { return .failure(.busy) }
            if let victim {
                guard core.send(.steal, to: victim.slot) else { return .failure(.busy) }
                victim.isLeaving = true
                sentCommands += 1
            }
            let id = nextVoiceID
            let voice = HapticVoice(engine: self, slot: slot, id: id, priority: priority, mode: mode, mixers: renderer.mixers,
                                    track: VoiceTrack(timeline: own.timeline, sampleRate: own.settings.sampleRate,
                                                      durationMilliseconds: own.durationMilliseconds,
                                                      animationFrameRate: animationFrameRate, voice: slot))
            do throws(DeviceError) {
                try core.install(VoiceCore(renderer: renderer, id: id, endsByItself: true, realtime: realtime), in: slot)
            } catch {
                return .failure(.unsupported(error))
            }
            guard core.send(.attach(voiceID: id), to: slot) else {
                core.remove(slot)
                return .failure(.busy)
            }
            nextVoiceID += 1
            sentCommands += 1
            voices[slot] = voice
            return .success(voice)
        }
        flags.ring()
        return try result.get()
    }

    /// The voices made and not yet gone, by slot. Control thread.
    public var activeVoices: [HapticVoice] { sending { voices.compactMap { $0 } } }

    /// Queues `command` for the voice in `slot`, taking effect no earlier than `notBefore`;
    /// false when the queue is full, the voice has left, or `open` (asked under the producers'
    /// lock, with the send: a steal cannot come between) says no. Any thread but the real-time one.
    @discardableResult
    func send(_ command: EngineCommand, to slot: Int, notBefore: StreamFrame? = nil, open: () -> Bool = { true }) -> Bool {
        let sent = sending {
            guard open() else { return false }
            let accepted = core.send(command, to: slot, notBefore: notBefore)
            if accepted { sentCommands += 1 }
            return accepted
        }
        if sent { flags.ring() }
        return sent
    }

    /// Applies `edit` to the live values of the newest mixer of `mixers` (the voice in `slot`)
    /// and switches that voice to a mixer built from them at the next effective frame.
    ///
    /// A transaction: the new mixer is built (off the real-time thread, allocating) from the
    /// generation it replaces, and installed only if that generation is still the newest — when
    /// another thread's change got in first, `edit` runs again on top of it, so concurrent
    /// changes of different fields all stand. A change the queue refuses is taken back before
    /// this throws, so the next one builds on what the real-time thread really has.
    /// `open` is asked under the producers' lock with the install, as for `send`.
    func adjust(_ mixers: MixerTable, slot: Int, _ edit: (inout LiveMix) -> Void, open: () -> Bool = { true },
                installed: (Int, PlaybackTimeline) -> Void) throws(LiveChangeError) {
        while true {
            let (base, generation) = sending { (mixers.newestMixer, mixers.newest) }
            let next: PresetMixer
            do {
                next = try base.adjusted(to: base.live.with(edit))
            } catch {
                throw .refused(error)
            }
            switch sending({ open() ? install(next, in: mixers, slot: slot, replacing: generation, installed: installed) : .busy }) {
            case .sent:
                flags.ring()
                return
            case .stale:
                continue
            case .busy:
                throw .busy
            }
        }
    }

    private enum InstallOutcome { case sent, stale, busy }

    /// Installs `next` if `generation` is still the newest and queues its change; on a full
    /// queue takes it back. Under `sendLock`.
    private func install(_ next: PresetMixer, in table: MixerTable, slot: Int, replacing generation: Int,
                         installed: (Int, PlaybackTimeline) -> Void) -> InstallOutcome {
        guard table.newest == generation else { return .stale }
        guard let g = table.install(next) else { return .busy }
        guard core.send(.mix(MixChange(generation: g, of: next)), to: slot) else {
            table.uninstall(g)
            return .busy
        }
        installed(g, next.timeline)
        sentCommands += 1
        return .sent
    }

    /// Ramps the master gain on every voice's haptics to `value` (0…4, clamped): at once (nil or
    /// 0: over `ParameterTrack.smoothingFrames`) or over `seconds`. False when the queue is full. Any
    /// thread but the real-time one.
    @discardableResult
    public func setMasterHapticGain(_ value: Double, over seconds: Double? = nil) -> Bool {
        send(.parameter(.masterGain, Self.target(.masterGain, value, over: seconds, rate: core.configuration.sampleRate)), to: EngineCore.engineSlot)
    }

    /// A target of `parameter`: `value` clamped into the parameter's range (NaN as 0), reached
    /// at once or after `seconds` (clamped into 0…24 h). "At once" is nil, or any `seconds` that
    /// comes to no frame at all — 0 among them, as every front door spells it (the script's
    /// `over 0`, the C API's and the bindings' `seconds` 0): a ramp of
    /// `ParameterTrack.smoothingFrames`, never a step (docs/signal-model.md §13).
    static func target(_ parameter: LiveParameter, _ value: Double, over seconds: Double?, rate: SampleRate) -> ParameterTrack.Target {
        let v = value.isNaN ? 0 : min(max(value, parameter.range.lowerBound), parameter.range.upperBound)
        guard let seconds else { return .init(value: v) }
        let s = seconds.isNaN ? 0 : min(max(seconds, 0), Limits.maximumMilliseconds / 1000)
        let frames = FrameIndex((s * Double(rate.hertz)).rounded())
        return frames > 0 ? .init(value: v, reach: .after(frames)) : .init(value: v)
    }

    /// True while a command or mix change sent has not yet taken effect as far as `poll()` has
    /// seen. Control thread.
    /// (A command the real-time thread could not apply counts as seen: `droppedCommands`.)
    public var hasPendingCommands: Bool {
        sending { sentCommands } > observedCommands + core.droppedCommands + core.unreportedCommands
    }

    /// Commands the real-time thread took and could not apply. Zero unless a producer's rule
    /// was broken; any thread.
    package var droppedCommands: Int { core.droppedCommands }

    // MARK: Events and clock (control thread)

    /// Drains the real-time thread's events: feeds the device clock and the voices, keeps the
    /// log, calls completion handlers, and empties the slots of voices that left.
    public func poll() { poll { _ in } }

    /// `poll()`, handing every event to `each` after `onEvent` and before the voices take it (a
    /// single player's clock).
    public func poll(_ each: (EngineEvent) -> Void) {
        while let event = core.events.pop() {
            // Before the device clock takes a reading in: a listener can ask what it predicted.
            onEvent?(event)
            take(event)
            each(event)
            deliver(event)
            if case .position = event { continue }
            if case .hapticDevicePosition = event { continue }
            if keepsEventLog { loggedEvents.append(event) }
        }
        if flags.failed.load(ordering: .acquiring), failure == nil {
            failure = flags.error
            for voice in activeVoices { voice.deviceFailed() }
        }
    }

    /// The engine's own bookkeeping of one event.
    private func take(_ event: EngineEvent) {
        switch event {
        case let .command(_, slot, _, _, state):
            observedCommands += 1
            // The real-time thread never returns to an older mixer of a voice: release them here.
            if state.mix > 0, let mixers = sending({ core.voice(slot)?.renderer.mixers }) {
                sending { mixers.retire(below: state.mix) }
            }
        case let .position(streamFrame, time):
            sending { filter.add(frames: streamFrame.index, at: time) }
        case .underrun:
            underruns += 1
            // The device restarted: its frames and time no longer lie on the old line.
            sending { filter.reset() }
        case let .detached(slot, _):
            sending {
                core.remove(slot)
                voices[slot]?.isGone = true
                voices[slot] = nil
            }
        case .eventsLost(let count):
            eventsLost += count
        case let .hapticDevicePosition(frame, time):
            sending { hapticClock?.filter.add(frames: frame.index, at: time) }
        case .hapticDeviceUnderrun:
            hapticDeviceUnderruns += 1
            sending { hapticClock?.filter.reset() }
        case let .hapticDeviceSegment(segment):
            sending { hapticClock?.take(segment) }
        case .completion, .renderFailed:
            break
        }
    }

    /// Hands `event` to the voice it concerns (or to every voice, for engine-wide events).
    private func deliver(_ event: EngineEvent) {
        switch event {
        case let .command(_, slot, _, _, _), let .completion(slot, _, _), let .detached(slot, _):
            if slot >= 0, let voice = sending({ voices[slot] }) { voice.observe(event) }
        case .position, .underrun, .renderFailed, .eventsLost, .hapticDevicePosition, .hapticDeviceSegment, .hapticDeviceUnderrun:
            break
        }
    }

    /// The stream frame being heard at `time` (fractional), from the device clock; nil before
    /// the first position reading. Any thread but the real-time one (a voice scheduled at an
    /// engine time asks it from the thread that schedules).
    /// With two devices, the main device's latency is taken off: the frame heard from it then.
    public func streamFrame(at time: MonotonicTime) -> Double? {
        sending { filter.frame(at: time.adding(seconds: -mainLatency)) }
    }

    /// Times the device clock saw the device's time line move — a run of readings off its line:
    /// a sound server held up, cycles skipped — and started over, since the engine was made.
    /// Any thread but the real-time one.
    public var clockTimelineMoves: Int { sending { filter.timelineMoves } }

    /// Two devices: the stream position the haptic device makes felt at `time` (fractional, as
    /// `streamFrame(at:)`): its own clock, less its latency, read through the segments it was
    /// fed by. Nil with one device or before its first reading. Any thread but the real-time one.
    public func hapticDeviceStreamFrame(at time: MonotonicTime) -> Double? {
        sending { hapticClock?.streamFrame(at: time) }
    }

    /// Two devices: the stream position the haptic device's position `position` (its frames,
    /// as a clock answers) read, by the recent segments `poll` has seen — for a truth a
    /// simulated haptic device knows. Any thread but the real-time one.
    @_spi(Internals) public func hapticDeviceStreamPosition(atDevicePosition position: Double) -> Double? {
        sending { hapticClock.flatMap { FeedSegment.streamPosition(atDevicePosition: position, in: $0.segments) } }
    }

    /// Underruns of the haptic device so far (two devices).
    public private(set) var hapticDeviceUnderruns = 0
    /// Frames written to the haptic device so far (read after `shutdown`, or in driven use).
    public var hapticDeviceWritten: HapticDeviceFrame { core.hapticDeviceWritten }
    /// Frames written to the main device so far (read after `shutdown`, or in driven use).
    public var mainWritten: StreamFrame { core.mainWritten }
    /// The main device's channels (the mix's less the haptic one, with two devices).
    public var mainChannels: Int { core.mainChannels }
    /// The haptic device's configuration, with two devices.
    public var hapticDeviceConfiguration: DeviceConfiguration? { core.feed?.configuration }

    /// The engine's time now (the monotonic clock the device clock is read against).
    public func now() -> MonotonicTime { monotonic.now() }
}
