#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PulsarAudio
import PulsarCore
import Synchronization

/// A live player shaped like PulsarLottie's: `play()`, `pause()`, `resume()`, `stop()`,
/// `setTimestamp(_:)`, a completion handler, and a clock slaved to the device (`contentTime(at:)`,
/// `progress(at:)`, `animationFrame(at:)`). A real-time thread runs `PlayerCore.step()` once per
/// half period; the control thread drains its events with `poll()`, which feeds the clock, the
/// event log and the completion handler.
///
/// Thread rules: commands (`play`, `pause`, …) from any thread but the real-time one — they
/// serialise on a lock the real-time thread never takes, then cross to it through a lock-free
/// queue. Create, `poll` and query from one control thread. The real-time thread is the
/// player's own; it never allocates, locks, prints or does I/O other than the device's. The
/// mixer must preload its audio.
public final class HapticPlayer: @unchecked Sendable {
    public let core: PlayerCore
    public private(set) var clock: PlaybackClock
    /// Every event except positions, in order (the event log's body).
    public private(set) var loggedEvents: [EngineEvent] = []
    /// Called on the control thread (from `poll`) when playback ends: true at the frame where the
    /// last sample was played, false on stop.
    public var completion: ((Bool) -> Void)?
    /// The device error that stopped the real-time thread, if any.
    public private(set) var failure: DeviceError?
    /// Underruns seen so far.
    public private(set) var underruns = 0

    private let monotonic: MonotonicClock
    private let flags = Flags()
    /// Serialises command producers (the queue takes one producer at a time).
    private let sending = Mutex(())
    private var thread: Thread?

    /// What the two threads share: atomics, and the error written once before `failed` is set.
    private final class Flags: @unchecked Sendable {
        let running = Atomic<Bool>(false)
        let failed = Atomic<Bool>(false)
        var error: DeviceError?
    }

    public init(mixer: PresetMixer, device: OutputDevice, monotonic: MonotonicClock = SystemMonotonicClock(),
                periodFrames: Int = 256, bufferFrames: Int = 1024, animationFrameRate: Double? = nil) throws(DeviceError) {
        let configuration = DeviceConfiguration(sampleRate: mixer.settings.sampleRate, channels: mixer.channelCount,
                                                periodFrames: periodFrames, bufferFrames: bufferFrames)
        core = try PlayerCore(renderer: TransportRenderer(mixer: mixer), device: device, clock: monotonic, configuration: configuration)
        self.monotonic = monotonic
        clock = PlaybackClock(timeline: mixer.timeline, sampleRate: mixer.settings.sampleRate,
                              durationMilliseconds: mixer.durationMilliseconds, animationFrameRate: animationFrameRate)
    }

    /// Starts the real-time thread (SCHED_FIFO is the ALSA backend's business; here it is a plain
    /// high-priority thread).
    public func start() {
        guard !flags.running.load(ordering: .acquiring) else { return }
        flags.running.store(true, ordering: .releasing)
        let core = self.core
        let flags = self.flags
        let halfPeriod = Double(core.configuration.periodFrames) / Double(core.configuration.sampleRate.hertz) / 2
        let t = Thread {
            var request = timespec(tv_sec: 0, tv_nsec: Int(halfPeriod * 1e9))
            while flags.running.load(ordering: .acquiring) {
                do throws(DeviceError) {
                    try core.step()
                } catch {
                    flags.error = error
                    flags.failed.store(true, ordering: .releasing)
                    flags.running.store(false, ordering: .releasing)
                    return
                }
                var remaining = timespec()
                nanosleep(&request, &remaining)
                request = timespec(tv_sec: 0, tv_nsec: Int(halfPeriod * 1e9))
            }
        }
        t.name = "pulsar-rt"
        thread = t
        t.start()
    }

    /// Stops the real-time thread and waits for it (up to one second).
    public func shutdown() {
        flags.running.store(false, ordering: .releasing)
        let deadline = Date().addingTimeInterval(1)
        while let t = thread, !t.isFinished, Date() < deadline { usleep(1000) }
        thread = nil
    }

    public var isRunning: Bool { flags.running.load(ordering: .acquiring) }

    // MARK: Commands (control thread)

    /// Queues `command`; false when the queue is full.
    @discardableResult
    public func send(_ command: TransportCommand) -> Bool {
        sending.withLock { _ in core.send(command) }
    }

    public func play() { send(.play(fromTimelineFrame: 0)) }
    public func play(fromProgress progress: Double) {
        let frame = FrameIndex((min(max(progress, 0), 1) * Double(core.renderer.mixer.frameCount)).rounded(.down))
        send(.play(fromTimelineFrame: frame))
    }
    public func pause() { send(.pause) }
    public func resume() { send(.resume) }
    public func stop() { send(.stop) }
    /// Seeks to `ms` of content (clamped into 0…duration), in the current iteration's timeline.
    public func setTimestamp(_ ms: Double) {
        let rate = core.renderer.mixer.settings.sampleRate
        let timeline = core.renderer.mixer.timeline
        let content = rate.nearestFrame(atMilliseconds: min(max(ms, 0), core.renderer.mixer.durationMilliseconds))
        let offset = min(max(content - timeline.segmentStart, 0), timeline.segmentLength - 1)
        send(.seek(toTimelineFrame: offset))
    }

    // MARK: Events and clock (control thread)

    /// Drains the real-time thread's events: feeds the clock, keeps the log, calls `completion`.
    public func poll() {
        while let event = core.events.pop() {
            clock.observe(event)
            switch event {
            case .position:
                continue
            case .underrun:
                underruns += 1
            case .completion(let finished, _):
                completion?(finished)
            case .command:
                break
            }
            loggedEvents.append(event)
        }
        if flags.failed.load(ordering: .acquiring), failure == nil {
            failure = flags.error
        }
    }

    public func contentTime(at time: MonotonicTime) -> Double? { clock.contentTime(at: time) }
    public func progress(at time: MonotonicTime) -> Double? { clock.progress(at: time) }
    public func animationFrame(at time: MonotonicTime) -> Double? { clock.animationFrame(at: time) }
    public func now() -> MonotonicTime { monotonic.now() }
}
