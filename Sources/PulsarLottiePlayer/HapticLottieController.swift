import PulsarAudio
import PulsarCore
import PulsarEngine
import PulsarLottie

/// A Lottie animation played in step with haptics and preset audio, shaped like lottie-ios's
/// `LottieAnimationView` controls: `play()`, `pause()`, `resume()`, `stop()`, segment plays by
/// progress, frame or marker, `loopMode`, and a completion handler.
///
/// The controller owns no timer. The frame to show is computed only from the engine's clock,
/// which is slaved to the output device (`HapticPlayer.contentTime(at:)`): the content time heard
/// at an instant, in ms, becomes the animation frame `ip + ms · fr / 1000`. So the animation shows
/// the frame of the sample being played; it freezes exactly where a pause took effect, jumps at a
/// seek's effective frame, wraps at loop boundaries and runs backwards in backward iterations
/// (boomerang ones, and every pass of a range whose end lies before its start).
///
/// Contract of the binding: content time 0 ms is the animation's in-point `ip`, and the content
/// runs at the animation's frame rate (give the mixer the animation's duration, or let the
/// duration precedence pick it). Frame ranges map to content ms as `(frame − ip) · 1000 / fr`
/// and play through the player's segment play (`HapticPlayer.adjust` then a play from timeline
/// frame 0), with the loop mode and the direction applied in the same mix change. A range whose
/// end lies before its start plays backwards, as lottie-ios does: the segment `[end, start)`
/// with `PlaybackTimeline.startsBackwards`.
///
/// Thread rules: create it, `poll()` it and query `currentFrame(at:)` / `currentProgress(at:)`
/// from one control thread (the player's). Commands (`play…`, `pause`, `resume`, `stop`,
/// `setTimestamp`, `setLoop`, `loopMode`, `hapticOffset`, `hapticsEnabled`) may come from any
/// thread but the player's real-time one, as the player's own commands do: they serialise on the
/// player's producer lock. The segment and loop commands build a mixer on the calling thread
/// (they allocate). `completion` is called on the control thread, from `poll()`.
public final class HapticLottieController: @unchecked Sendable {
    /// Why a segment play was refused. Nothing is sent to the player when one is thrown.
    public enum PlayError: Error, Equatable, CustomStringConvertible, Sendable {
        /// No marker has this name (looked up as `LottieAnimation.marker(named:)` does).
        case unknownMarker(String)
        /// The range, after clamping into `ip … op`, holds no frames: its ends are equal (it may
        /// have lain wholly outside the animation, or on one side of it), or less than one sample
        /// apart. Carries the clamped range.
        case emptyRange(LottieFrameRange)
        /// The mixer refused the segment or loop (see `PresetMixer.SetupError`).
        case mixer(String)
        /// Too many live changes are in flight, or the player's command queue is full: retry
        /// after the next `poll()`.
        case busy

        /// The player's refusal as this error.
        init(_ error: LiveChangeError) {
            switch error {
            case .refused(let why): self = .mixer(why.description)
            case .busy: self = .busy
            }
        }

        public var description: String {
            switch self {
            case .unknownMarker(let name): return "no marker named \"\(name)\""
            case .emptyRange(let range): return "the range \(range) holds no playable frames"
            case .mixer(let why): return why
            case .busy: return "the player is busy: too many changes in flight"
            }
        }
    }

    /// The animation shown.
    public let animation: LottieAnimation
    /// The player whose clock the animation follows.
    public let player: HapticPlayer

    /// Binds `animation` to `player` (whose mixer plays the preset or pattern). The player's
    /// real-time thread is the caller's business (`player.start()`), as is calling `poll()`.
    public init(animation: LottieAnimation, player: HapticPlayer) {
        self.animation = animation
        self.player = player
    }

    /// Binds `animation` to a new player of `mixer` on `device` (see `HapticPlayer.init`); the
    /// player is not started (`hapticDevice`: the touch on that device, the sound on `device`,
    /// the animation on `device`'s clock). `hapticMode` (PulsarLottie's `HapticMode`): `.pattern`, the haptics
    /// play their own timeline and the animation follows the device's clock; `.realtime`, the
    /// animation runs on the engine's monotonic clock and the haptics follow it, re-firing the
    /// transients a seek or scrub passes back over. Nil picks as PulsarLottie does: `.pattern`
    /// for a preset carrying audio, `.realtime` for one without.
    public convenience init(animation: LottieAnimation, mixer: PresetMixer, device: OutputDevice,
                            monotonic: MonotonicClock = SystemMonotonicClock(), periodFrames: Int = 256,
                            bufferFrames: Int = 1024, realtime: Bool = false, hapticMode: HapticVoice.Mode? = nil,
                            hapticDevice: HapticDeviceOutput? = nil) throws(DeviceError) {
        let player = try HapticPlayer(mixer: mixer, device: device, monotonic: monotonic, periodFrames: periodFrames,
                                      bufferFrames: bufferFrames, animationFrameRate: animation.timing.frameRate,
                                      realtime: realtime, mode: hapticMode ?? (mixer.audioFormat == nil ? .realtime : .pattern),
                                      hapticDevice: hapticDevice)
        self.init(animation: animation, player: player)
    }

    /// What moves the haptics: their own timeline (`.pattern`) or the animation (`.realtime`);
    /// the player's mode (`HapticPlayer.mode`). In `.realtime` every transport call here — play,
    /// segments, loops, seeks, `setLoop(_:count:reverse:)` — drives the animation's own clock,
    /// and each `poll()` hands the haptics where it stands.
    public var hapticMode: HapticVoice.Mode { player.mode }

    /// The animation's timing (`fr`, `ip`, `op`).
    public var timing: LottieTiming { animation.timing }

    // MARK: Transport (any thread but the real-time one)

    /// Plays the whole content (`ip … op`) forwards from its start with the current `loopMode`,
    /// resetting any segment or backward direction a range play left. Returns false when the
    /// player refused (queue full or too many changes in flight).
    @discardableResult
    public func play() -> Bool {
        let range = player.mixer.range
        if range.from != nil || range.to != nil || range.startsBackwards {
            do {
                try player.adjust { $0.from = nil; $0.to = nil; $0.startsBackwards = false }
            } catch {
                lastChangeError = PlayError(error)
                return false
            }
        }
        return player.send(.play(fromTimelineFrame: .zero))
    }

    /// Plays `fromProgress … toProgress` of the animation (0 at `ip`, 1 at `op`; nil `from` is 0),
    /// like `play(fromFrame:toFrame:loopMode:)` with `frame = ip + progress · (op − ip)`.
    public func play(fromProgress: LottieProgress? = nil, toProgress: LottieProgress,
                     loopMode: LottieLoopMode? = nil) throws(PlayError) {
        try play(fromFrame: timing.frame(atProgress: fromProgress ?? LottieProgress(0)),
                 toFrame: timing.frame(atProgress: toProgress), loopMode: loopMode)
    }

    /// Plays the animation frames `fromFrame … toFrame` (nil `from`: `ip`), repeating as
    /// `loopMode` says (nil: the current `loopMode`), from the range's start. When `toFrame` lies
    /// before `fromFrame` the range plays backwards, from `fromFrame` down to `toFrame`, as in
    /// lottie-ios: every pass of `.loop` and `.repeat(n)` runs backwards; `.autoReverse` and
    /// `.repeatBackwards(n)` go backwards first, then forwards, and so on.
    ///
    /// Contract: both ends are clamped into `ip … op` first (`op` is a valid end: the range
    /// then plays to the last sample); a range whose clamped ends are equal (for instance wholly
    /// outside the animation) throws `.emptyRange` and sends nothing. The range plays as the
    /// content segment between `(f − ip) · 1000 / fr` ms of its two ends (the later end limited
    /// to the content's duration), forwards when `from < to`, otherwise with
    /// `PlaybackTimeline.startsBackwards` (its timeline frame 0 is then the content frame just
    /// before `from`). A forward range resets the direction.
    ///
    /// Completion(true) comes when the last iteration has been heard, and `currentFrame(at:)`
    /// then holds where that iteration ended: the range's end (`toFrame`, for a backward range
    /// too) when the last iteration runs in the range's direction — always without boomerang, and
    /// after an odd number of iterations with it — and the range's start after a boomerang of an
    /// even count (`.repeatBackwards(n)` comes back to `fromFrame`). An end at `op` shows as the
    /// last whole frame (`LottieTiming.clamped`); other ends are exact to within one sample of
    /// content.
    public func play(fromFrame: LottieFrame? = nil, toFrame: LottieFrame, loopMode: LottieLoopMode? = nil) throws(PlayError) {
        let range = try clampedRange(LottieFrameRange(start: fromFrame ?? timing.inPoint, end: toFrame))
        try playSegment(range, loopMode: loopMode ?? self.loopMode)
    }

    /// Plays from the start of marker `fromMarker` to the start of marker `toMarker`, or, without
    /// `toMarker`, over `fromMarker`'s own range (`tm … tm + dr`). Markers are looked up with
    /// `LottieAnimation.marker(named:)` (exact name, then trimmed); the frames then clamp into
    /// `ip … op` as in `play(fromFrame:toFrame:loopMode:)`.
    ///
    /// Throws `.unknownMarker` for a name no marker has, `.emptyRange` when the clamped range
    /// holds no frames (for instance markers placed wholly after `op`, or a marker of duration 0
    /// played alone). A `toMarker` that starts before `fromMarker` plays the range backwards.
    public func play(fromMarker: String, toMarker: String? = nil, loopMode: LottieLoopMode? = nil) throws(PlayError) {
        try playSegment(markerRange(fromMarker: fromMarker, toMarker: toMarker), loopMode: loopMode ?? self.loopMode)
    }

    /// The clamped frame range `play(fromMarker:toMarker:loopMode:)` plays (its end lies before
    /// its start when it plays backwards).
    public func markerRange(fromMarker: String, toMarker: String? = nil) throws(PlayError) -> LottieFrameRange {
        guard let start = animation.marker(named: fromMarker) else { throw .unknownMarker(fromMarker) }
        let end: LottieFrame
        if let toMarker {
            guard let to = animation.marker(named: toMarker) else { throw .unknownMarker(toMarker) }
            end = to.start
        } else {
            end = start.end
        }
        return try clampedRange(LottieFrameRange(start: start.start, end: end))
    }

    /// Pauses at the next effective frame; the frame shown freezes there.
    public func pause() { player.pause() }
    /// Resumes from exactly the content frame where the pause took effect.
    public func resume() { player.resume() }
    /// Stops; completion(false).
    public func stop() { player.stop() }
    /// `stop()` under lottie-ios's other name.
    public func reset() { player.reset() }

    /// Seeks to `ms` of content (clamped into 0 … duration, then into the segment) in the first
    /// iteration (`timelineFrame(atMs:)`); the frame shown jumps at the seek's effective frame.
    public func setTimestamp(_ ms: Double) { player.send(.seek(toTimelineFrame: timelineFrame(atMs: ms))) }

    /// Seeks to animation frame `frame` (content ms `(frame − ip) · 1000 / fr`).
    public func setFrame(_ frame: LottieFrame) { setTimestamp(timing.milliseconds(atFrame: frame)) }

    /// The timeline frame `setTimestamp(ms)` goes to (`HapticPlayer.timelineFrame(atMs:)`: the
    /// first iteration's frame of that content, in that iteration's direction).
    public func timelineFrame(atMs ms: Double) -> TimelineFrame { player.timelineFrame(atMs: ms) }

    /// The player's loop control: `loop` false plays the current iteration to its end; true
    /// repeats `count` iterations in all (nil: without end), boomerang when `reverse`.
    public func setLoop(_ loop: Bool, count: Int? = nil, reverse: Bool = false) throws(PlayError) {
        do {
            try player.setLoop(loop, count: count, reverse: reverse)
        } catch {
            throw PlayError(error)
        }
    }

    /// How the current segment repeats, read from and written to the player's newest mixer.
    ///
    /// Mapping (an *iteration* is one pass through the segment; see `LottieLoopMode`):
    /// `.playOnce` → 1 iteration; `.loop` → endless; `.autoReverse` → endless boomerang;
    /// `.repeat(n)` → `n` iterations; `.repeatBackwards(n)` → `n` round trips, i.e. `2n`
    /// iterations, boomerang (as `LottieLoopMode.passCount` counts them). Fractional counts round
    /// to the nearest whole iteration, and at least one plays (the engine plays whole iterations).
    /// Reading maps back: 1 iteration reads `.playOnce`, a boomerang of `k` iterations reads
    /// `.repeatBackwards(k / 2)`. The direction of a backward range is no part of the loop mode:
    /// it reads and writes the same modes, and setting one keeps the direction.
    ///
    /// Setting applies at once, as a live change continuing what is heard; a refused change
    /// leaves the mode as it was and is kept in `lastChangeError` (`setLoopMode(_:)` throws it).
    public var loopMode: LottieLoopMode {
        get {
            let t = player.mixer.timeline
            if t.isEndless { return t.reverse ? .autoReverse : .loop }
            if t.loopCount == 1 { return .playOnce }
            return t.reverse ? .repeatBackwards(Double(t.loopCount) / 2) : .repeat(Double(t.loopCount))
        }
        set {
            do {
                try setLoopMode(newValue)
            } catch {
                lastChangeError = error
            }
        }
    }

    /// Why the last change made through a property setter (`loopMode`, `hapticOffset`,
    /// `hapticsEnabled`) or `play()` did not happen; nil after one that did. Control thread.
    public private(set) var lastChangeError: PlayError?

    /// Sets `hapticOffset`.
    public func setHapticOffset(_ ms: Double) throws(PlayError) { try change { $0.hapticOffset = ms } }
    /// Sets `hapticsEnabled`.
    public func setHapticsEnabled(_ on: Bool) throws(PlayError) { try change { $0.hapticsEnabled = on } }

    /// Sets `loopMode`.
    public func setLoopMode(_ mode: LottieLoopMode) throws(PlayError) {
        let (count, reverse) = Self.iterations(of: mode)
        try change { $0.loopCount = count; $0.reverse = reverse }
    }

    /// Applies `edit` to the player's live values; records the outcome in `lastChangeError`.
    private func change(_ edit: (inout LiveMix) -> Void) throws(PlayError) {
        do {
            try player.adjust(edit)
            lastChangeError = nil
        } catch {
            lastChangeError = PlayError(error)
            throw PlayError(error)
        }
    }

    /// The mixer loop count and boomerang flag for `mode` (see `loopMode`).
    public static func iterations(of mode: LottieLoopMode) -> (loopCount: Int, reverse: Bool) {
        guard let passes = mode.passCount else { return (PlaybackTimeline.endless, mode.reverses) }
        let whole = passes.rounded()
        let count = whole >= 1 ? (whole < 1e15 ? Int(whole) : PlaybackTimeline.endless) : 1
        return (count, mode.reverses && count > 1)
    }

    /// Milliseconds by which haptics lag (positive) or lead audio and animation.
    public var hapticOffset: Double {
        get { player.hapticOffset }
        set { try? change { $0.hapticOffset = newValue } }
    }

    /// False silences the haptic channel(s); the animation and audio play on.
    public var hapticsEnabled: Bool {
        get { player.hapticsEnabled }
        set { try? change { $0.hapticsEnabled = newValue } }
    }

    /// Content duration in ms, after the mixer's duration precedence.
    public var durationMs: Double { player.durationMs }

    /// Called on the control thread (from `poll()`) when playback ends: true when the last
    /// sample of the last iteration was heard, false on stop. The player's own handler.
    public var completion: ((Bool) -> Void)? {
        get { player.completion }
        set { player.completion = newValue }
    }

    // MARK: Clock (control thread)

    /// Drains the player's events (feeds its clock, calls `completion`). Control thread.
    public func poll() { player.poll() }

    /// The animation frame to show at `time`: `ip + ms · fr / 1000` for the content time the
    /// device is playing then (`HapticPlayer.contentTime(at:)`), clamped into `ip ..< op` as
    /// `LottieTiming.clamped` does (at or after `op`: the last whole frame). Nil before the
    /// device has reported a position. Control thread.
    public func currentFrame(at time: MonotonicTime) -> LottieFrame? {
        guard let ms = player.contentTime(at: time) else { return nil }
        return timing.shownFrame(atMilliseconds: ms)
    }

    /// `currentFrame(at:)` as progress through `ip … op`. Control thread.
    public func currentProgress(at time: MonotonicTime) -> LottieProgress? {
        currentFrame(at: time).map { timing.progress(atFrame: $0) }
    }

    /// The iteration heard at `time` and the loop count (`PlaybackTimeline.endless` without end).
    public func iteration(at time: MonotonicTime) -> (iteration: Int, count: Int)? { player.iteration(at: time) }

    /// The player's monotonic now.
    public func now() -> MonotonicTime { player.now() }

    // MARK: Ranges

    /// Both ends clamped into `ip … op` (either order); throws when the ends are then equal.
    private func clampedRange(_ range: LottieFrameRange) throws(PlayError) -> LottieFrameRange {
        func clamp(_ f: LottieFrame) -> LottieFrame {
            guard !f.value.isNaN else { return timing.inPoint }
            return LottieFrame(min(max(f.value, timing.inPoint.value), timing.outPoint.value))
        }
        let clamped = LottieFrameRange(start: clamp(range.start), end: clamp(range.end))
        guard clamped.end != clamped.start else { throw .emptyRange(clamped) }
        return clamped
    }

    /// Plays `range` (already clamped) as a content segment with `mode`'s loops and the range's
    /// direction, in one mix change, from timeline frame 0.
    private func playSegment(_ range: LottieFrameRange, loopMode mode: LottieLoopMode) throws(PlayError) {
        let backwards = range.end < range.start
        let low = backwards ? range.end : range.start, high = backwards ? range.start : range.end
        let fromMs = max(timing.milliseconds(atFrame: low), 0)
        let toMs = min(timing.milliseconds(atFrame: high), player.durationMs)
        let rate = player.mixer.settings.sampleRate
        guard rate.nearestFrame(atMilliseconds: toMs) > rate.nearestFrame(atMilliseconds: fromMs) else {
            throw .emptyRange(range)
        }
        let (count, reverse) = Self.iterations(of: mode)
        try change {
            $0.loopCount = count
            $0.reverse = reverse
            $0.from = fromMs
            $0.to = toMs
            $0.startsBackwards = backwards
        }
        guard player.send(.play(fromTimelineFrame: .zero)) else { throw .busy }
    }
}
