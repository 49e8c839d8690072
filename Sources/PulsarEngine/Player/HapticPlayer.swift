#if canImport(Glibc)
import Glibc
#endif
import CWakeup
import Foundation
import PulsarAudio
import PulsarCore
import Synchronization

/// A live player shaped like PulsarLottie's: `play()`, `pause()`, `resume()`, `stop()`,
/// `setTimestamp(_:)`, a completion handler, and a clock slaved to the device (`contentTime(at:)`,
/// `progress(at:)`, `animationFrame(at:)`). A real-time thread runs `PlayerCore.step()` once a
/// period (or, with `wake: .device`, when the device's poll descriptors say it wants a period, as
/// mpv's ALSA output waits) and at once when a command arrives (an eventfd the senders ring);
/// the control thread drains its events with `poll()`, which feeds the clock, the event log and
/// the completion handler.
///
/// Thread rules: commands (`play`, `pause`, …) from any thread but the real-time one — they
/// serialise on a lock the real-time thread never takes, then cross to it through a lock-free
/// queue. Create, `poll` and query from one control thread. The real-time thread is the
/// player's own; it never allocates, locks, prints or does I/O other than the device's. The
/// mixer must preload its audio.
public final class HapticPlayer: @unchecked Sendable {
    /// The real-time side. Private: its command queue takes one producer at a time, which only
    /// this class's lock guarantees.
    private let core: PlayerCore
    public private(set) var clock: PlaybackClock
    /// Every event except positions, in order (the event log's body).
    public private(set) var loggedEvents: [EngineEvent] = []
    /// Called on the control thread (from `poll`) when playback ends: true at the frame where the
    /// last sample was played, false on stop.
    public var completion: ((Bool) -> Void)?
    /// Called on the control thread (from `poll`) with every event of the real-time thread —
    /// position readings (in stream frames) and underruns among them — just before the clock
    /// takes it in: a listener can ask the clock what it predicted for a reading's instant
    /// (`streamFrame(at:)`), to measure the clock against the device.
    public var onEvent: ((EngineEvent) -> Void)?
    /// The device error that stopped the real-time thread, if any.
    public private(set) var failure: DeviceError?
    /// Underruns seen so far.
    public private(set) var underruns = 0
    /// Events the real-time thread could not queue (nobody polled for too long); non-zero
    /// means the event log is incomplete.
    public private(set) var eventsLost = 0
    /// A completion was reported since the transport last started playing.
    private var completed = false

    private let monotonic: MonotonicClock
    private let realtime: Bool
    private let wake: WakeSource
    private let flags = Flags()
    /// Serialises command producers (the queue takes one producer at a time) and guards the
    /// mixer table's control side and the timelines of changes the clock has not seen yet.
    private let sendLock = NSLock()
    /// Timelines of changes the clock has not taken in yet (guarded by `sendLock`).
    private var pendingTimelines: [(generation: Int, timeline: PlaybackTimeline)] = []
    /// Commands (mix changes included) accepted by the queue (guarded by `sendLock`), and those
    /// whose effect `poll()` has seen (control thread).
    private var sentCommands = 0
    private var observedCommands = 0

    /// Runs `body` under the producers' lock: a pthread mutex (NSLock), which ThreadSanitizer
    /// sees, unlike the futex inside the standard library's `Mutex`.
    private func sending<T>(_ body: () throws -> T) rethrows -> T {
        sendLock.lock()
        defer { sendLock.unlock() }
        return try body()
    }
    /// The real-time thread of the current run (nil when stopped), joined by `shutdown`.
    private var run: Run?

    /// What the two threads share across runs: the wake-up the real-time thread sleeps on, and
    /// the error written once before `failed` is set.
    private final class Flags: @unchecked Sendable {
        let wakeup = pulsar_wakeup_create()!
        deinit { pulsar_wakeup_destroy(wakeup) }
        let failed = Atomic<Bool>(false)
        let scheduling = Atomic<SchedulingState>(.notAsked)
        var error: DeviceError?
    }

    /// One start of the real-time thread: its own `running` flag, so a thread of an earlier run
    /// can never be revived by a later `start()`.
    private final class Run: @unchecked Sendable {
        let running = Atomic<Bool>(true)
        var thread: JoinableThread?
    }

    /// What wakes the real-time thread between steps.
    public enum WakeSource: Sendable {
        /// The device's poll descriptors (ALSA's), when it has them: the thread sleeps until the
        /// device wants a period or a command arrives. A device without them falls back to `timer`.
        case device
        /// A timer once a period, or a command.
        case timer
    }

    /// What became of the request for SCHED_FIFO.
    enum SchedulingState: UInt8, AtomicRepresentable {
        case notAsked, granted, refused
    }

    /// `realtime`: ask for SCHED_FIFO for the real-time thread (for hardware and sound servers;
    /// a simulated device does not need it, and a FIFO thread that is slow — a debug build —
    /// would starve the machine's other threads). `wake`: what the real-time thread sleeps on
    /// between steps — a timer by default: on PipeWire's ALSA plugin the poll descriptors wake it
    /// twice a period for the same command latency (BENCHMARKS.md, wake sources).
    public init(mixer: PresetMixer, device: OutputDevice, monotonic: MonotonicClock = SystemMonotonicClock(),
                periodFrames: Int = 256, bufferFrames: Int = 1024, animationFrameRate: Double? = nil,
                realtime: Bool = false, wake: WakeSource = .timer) throws(DeviceError) {
        self.realtime = realtime
        self.wake = wake
        let configuration = DeviceConfiguration(sampleRate: mixer.settings.sampleRate, channels: mixer.channelCount,
                                                periodFrames: periodFrames, bufferFrames: bufferFrames)
        core = try PlayerCore(renderer: TransportRenderer(mixer: mixer), device: device, clock: monotonic, configuration: configuration)
        self.monotonic = monotonic
        clock = PlaybackClock(timeline: mixer.timeline, sampleRate: mixer.settings.sampleRate,
                              durationMilliseconds: mixer.durationMilliseconds, animationFrameRate: animationFrameRate)
    }

    /// Starts a real-time thread for this run; does nothing while one runs. After `shutdown`
    /// a new thread starts from where the transport stands. Control thread.
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
            flags.error = .badState("the system refused a thread")
            flags.failed.store(true, ordering: .releasing)
        }
        self.run = run
    }

    /// The real-time thread's body: a step, then a wait for the next.
    private static func realtimeLoop(core: PlayerCore, run: Run, flags: Flags, monotonic: MonotonicClock, wake: WakeSource) {
        let periodNs = Int64(Double(core.configuration.periodFrames) / Double(core.configuration.sampleRate.hertz) * 1e9)
        let descriptors = wake == .device ? core.device.pollDescriptors : UnsafeMutableBufferPointer(start: nil, count: 0)
        while run.running.load(ordering: .acquiring) {
            do throws(DeviceError) {
                try core.step()
            } catch {
                flags.error = error
                flags.failed.store(true, ordering: .releasing)
                run.running.store(false, ordering: .releasing)
                return
            }
            let now = monotonic.now().nanoseconds
            guard descriptors.count > 0 else {
                // Once a period to top up the device, or at once when a command arrives.
                _ = pulsar_wakeup_sleep_until(flags.wakeup, now + periodNs)
                continue
            }
            // When the device wants a period, or a command arrives; two periods at most, should
            // the descriptors stay silent.
            let woke = pulsar_wakeup_wait(flags.wakeup, descriptors.baseAddress, Int32(descriptors.count), now + 2 * periodNs)
            // Asking the device what its descriptors mean also clears a plugin's wake event
            // (PipeWire's is an eventfd), so the next wait blocks until the next period.
            if woke & Int32(PULSAR_WAKE_DEVICE) != 0, !core.device.wantsData(), woke & Int32(PULSAR_WAKE_RUNG) == 0 {
                // The descriptors fired for nothing the device wants: no spinning on them.
                _ = pulsar_wakeup_sleep_until(flags.wakeup, now + periodNs / 2)
            }
        }
    }

    /// Stops the real-time thread and joins it: when this returns the thread has ended and the
    /// device is no longer written. Idempotent; the device stays open until the player goes.
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

    /// The configuration the device really runs at.
    public var configuration: DeviceConfiguration { core.configuration }
    /// How late the real-time thread's steps came (any thread).
    public var wakeups: WakeupStatistics { core.wakeups }
    /// Stream frames written to the device so far (read after `shutdown`, or in driven use).
    public var streamWritten: StreamFrame { core.streamWritten }
    /// Monotonic time of the first frame written (nil before); read after `shutdown`.
    public var firstWriteTime: MonotonicTime? { core.firstWriteTime }

    /// Driven use, without `start()`: runs one step of the real-time thread on the calling
    /// thread (deterministic tests on a driven clock, offline runs). Never while started.
    public func step() throws(DeviceError) {
        precondition(run == nil, "step() drives a player whose thread is not started")
        try core.step()
    }

    /// Whether the real-time thread got SCHED_FIFO (nil until it has asked, or when it was not
    /// to ask). Without the
    /// privilege it runs at normal priority: it still never blocks, but can be preempted.
    public var hasRealtimeScheduling: Bool? {
        switch flags.scheduling.load(ordering: .acquiring) {
        case .granted: return true
        case .refused: return false
        case .notAsked: return nil
        }
    }

    /// Priority of the real-time thread under SCHED_FIFO: above ordinary threads, below the
    /// sound server's own data thread (PipeWire's runs at 88) and the kernel's IRQ threads (50
    /// is their default, so stay above them only where an ALSA driver needs it: not here).
    public static let realtimePriority: Int32 = 40

    /// Asks for SCHED_FIFO for the calling thread; false when refused (no CAP_SYS_NICE or rtprio limit).
    private static func requestRealtimeScheduling() -> Bool {
        var param = sched_param()
        param.sched_priority = realtimePriority
        return pthread_setschedparam(pthread_self(), SCHED_FIFO, &param) == 0
    }

    // MARK: Commands (control thread)

    /// Queues a transport command; false when the queue is full. `.mix` commands come from
    /// `adjust(_:)`, which prepares their mixer.
    @discardableResult
    public func send(_ command: TransportCommand) -> Bool {
        if case .mix = command { return false }
        let sent = sending {
            let accepted = core.send(command)
            if accepted { sentCommands += 1 }
            return accepted
        }
        if sent { pulsar_wakeup_ring(flags.wakeup) }
        return sent
    }

    /// True while a command or mix change sent has not yet taken effect as far as `poll()` has
    /// seen: the clock's state (`clock.isIdle`, the mode) may still be the one before it.
    /// Control thread.
    public var hasPendingCommands: Bool { sending { sentCommands } > observedCommands }

    /// The mixer of the newest change (what the next one starts from).
    public var mixer: PresetMixer { sending { core.renderer.mixers.newestMixer } }

    /// Content duration in ms after the duration precedence (explicit > preset > animation > content).
    public var durationMs: Double { core.renderer.mixer.durationMilliseconds }

    /// Plays from the start of the segment.
    @discardableResult
    public func play() -> Bool { send(.play(fromTimelineFrame: .zero)) }
    /// Plays from `progress` (0…1) of the whole timeline, loops included.
    public func play(fromProgress progress: Double) {
        let total = mixer.frameCount
        let span = total == FrameIndex.max ? mixer.timeline.segmentLength : total
        send(.play(fromTimelineFrame: TimelineFrame(FrameIndex((min(max(progress, 0), 1) * Double(span)).rounded(.down)))))
    }
    /// Plays from timeline frame `frame`.
    @discardableResult
    public func play(fromFrame frame: TimelineFrame) -> Bool { send(.play(fromTimelineFrame: max(frame, .zero))) }
    /// Plays the segment `fromMs ..< toMs` of content (nil: the start / the end), with the
    /// current loop settings. False when the play command found the queue full (the segment
    /// change stands).
    @discardableResult
    public func play(fromMs: Double?, toMs: Double?) throws(LiveChangeError) -> Bool {
        try adjust { $0.from = fromMs; $0.to = toMs }
        return send(.play(fromTimelineFrame: .zero))
    }
    @discardableResult
    public func pause() -> Bool { send(.pause) }
    @discardableResult
    public func resume() -> Bool { send(.resume) }
    /// Stops; completion(false).
    @discardableResult
    public func stop() -> Bool { send(.stop) }
    /// `stop()` under lottie-ios's other name.
    public func reset() { stop() }
    /// Seeks to `ms` of content (clamped into 0…duration), in the current iteration's timeline.
    @discardableResult
    public func setTimestamp(_ ms: Double) -> Bool { send(.seek(toTimelineFrame: timelineFrame(atMs: ms))) }

    /// Holds paused at `ms` of content (clamped as `setTimestamp` does), whatever the state:
    /// the clock then reports exactly that content time, and `resume()` plays from it.
    /// lottie-ios's `currentTime =` / `currentFrame =`.
    @discardableResult
    public func cue(atMs ms: Double) -> Bool { send(.cue(toTimelineFrame: timelineFrame(atMs: ms))) }

    /// The timeline frame `setTimestamp(ms)` and `cue(atMs: ms)` go to: content time `ms`
    /// clamped into 0 … duration, at the nearest frame, clamped into the newest mixer's segment,
    /// where the first iteration plays it — in that iteration's direction
    /// (`PlaybackTimeline.timelineFrame(of:inIteration:)`), so a segment that starts
    /// backwards seeks to the same content as a forward one.
    public func timelineFrame(atMs ms: Double) -> TimelineFrame {
        let m = mixer
        let content = m.settings.sampleRate.contentFrame(atMilliseconds: min(max(ms, 0), m.durationMilliseconds))
        return m.timeline.timelineFrame(of: content, inIteration: 0)
    }

    /// Loops: `loop` false plays the current iteration to its end and stops; true repeats
    /// `count` times in all (nil: without end), boomerang when `reverse`. Takes effect at a
    /// device frame like any command, continuing the content being heard.
    public func setLoop(_ loop: Bool, count: Int? = nil, reverse: Bool = false) throws(LiveChangeError) {
        let n = loop ? (count.map { max($0, 1) } ?? PlaybackTimeline.endless) : 1
        try adjust { $0.loopCount = n; $0.reverse = loop && reverse }
    }

    /// Milliseconds by which haptics lag (positive) or lead audio and animation.
    public var hapticOffset: Double { mixer.settings.hapticOffset }
    /// Sets `hapticOffset` live.
    public func setHapticOffset(_ ms: Double) throws(LiveChangeError) { try adjust { $0.hapticOffset = ms } }

    /// False silences the haptic channel(s); the layout keeps them.
    public var hapticsEnabled: Bool { mixer.settings.hapticsEnabled }
    /// Sets `hapticsEnabled` live.
    public func setHapticsEnabled(_ on: Bool) throws(LiveChangeError) { try adjust { $0.hapticsEnabled = on } }

    /// Applies `edit` to the live values of the newest mixer and switches to a mixer built from
    /// them at the next effective frame.
    ///
    /// A transaction: the new mixer is built (off the real-time thread, allocating) from the
    /// generation it replaces, and installed only if that generation is still the newest — when
    /// another thread's change got in first, `edit` runs again on top of it, so concurrent
    /// changes of different fields all stand. A change the queue refuses is taken back before
    /// this throws, so the next one builds on what the real-time thread really has.
    /// Any thread but the real-time one.
    public func adjust(_ edit: (inout LiveMix) -> Void) throws(LiveChangeError) {
        while true {
            let (base, generation) = sending { (core.renderer.mixers.newestMixer, core.renderer.mixers.newest) }
            let next: PresetMixer
            do {
                next = try base.adjusted(to: base.live.with(edit))
            } catch {
                throw .refused(error)
            }
            switch sending({ install(next, replacing: generation) }) {
            case .sent:
                pulsar_wakeup_ring(flags.wakeup)
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
    private func install(_ next: PresetMixer, replacing generation: Int) -> InstallOutcome {
        let table = core.renderer.mixers
        guard table.newest == generation else { return .stale }
        guard let installed = table.install(next) else { return .busy }
        guard core.send(.mix(MixChange(generation: installed, of: next))) else {
            table.uninstall(installed)
            return .busy
        }
        pendingTimelines.append((installed, next.timeline))
        sentCommands += 1
        return .sent
    }

    // MARK: Events and clock (control thread)

    /// Drains the real-time thread's events: feeds the clock, keeps the log, calls `completion`.
    public func poll() {
        registerTimelines()
        while let event = core.events.pop() {
            if case .command(let command, _, _, let state) = event {
                observedCommands += 1
                if case .mix = command { registerTimelines() }
                if state.mode == .playing { completed = false }
                // The real-time thread never returns to an older mixer: release them here.
                if state.mix > 0 {
                    sending { core.renderer.mixers.retire(below: state.mix) }
                }
            }
            onEvent?(event)
            clock.observe(event)
            switch event {
            case .position:
                continue
            case .underrun:
                underruns += 1
            case .completion(let finished, _):
                completed = true
                completion?(finished)
            case .command, .renderFailed:
                break
            case .eventsLost(let count):
                eventsLost += count
            }
            loggedEvents.append(event)
        }
        if flags.failed.load(ordering: .acquiring), failure == nil {
            failure = flags.error
            // The device is gone: playback has ended, unfinished.
            if !completed {
                completed = true
                completion?(false)
            }
        }
    }

    private func registerTimelines() {
        let fresh = sending {
            defer { pendingTimelines.removeAll() }
            return pendingTimelines
        }
        for (generation, timeline) in fresh { clock.register(timeline, generation: generation) }
    }

    /// The iteration heard at `time` and the loop count.
    public func iteration(at time: MonotonicTime) -> (iteration: Int, count: Int)? { clock.iteration(at: time) }

    /// The stream frame being heard at `time`, from the device clock (nil before a reading).
    public func streamFrame(at time: MonotonicTime) -> Double? { clock.streamFrame(at: time) }
    public func contentTime(at time: MonotonicTime) -> Double? { clock.contentTime(at: time) }
    public func progress(at time: MonotonicTime) -> Double? { clock.progress(at: time) }
    public func animationFrame(at time: MonotonicTime) -> Double? { clock.animationFrame(at: time) }
    public func now() -> MonotonicTime { monotonic.now() }
}

/// Why a live change did not happen. Nothing of a refused change stays behind.
public enum LiveChangeError: Error, Sendable, CustomStringConvertible {
    /// The mixer refused the values (out of range, nothing left to play, …).
    case refused(PresetMixer.SetupError)
    /// Too many changes are in flight for the real-time thread, or its command queue is full:
    /// try again after the next `poll()`.
    case busy

    public var description: String {
        switch self {
        case .refused(let error): return error.description
        case .busy: return "too many live changes in flight; try again [busy]"
        }
    }
}
