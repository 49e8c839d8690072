import PulsarCore

/// A voice's own haptic oscillator, from its first sharpness change on (docs/signal-model.md
/// §12): its phase at some stream frames, as the voice's renders leave it. The phase at any
/// frame is the phase at the checkpoint before it advanced by the frames the voice renders in
/// between — an integer sum, so it does not matter which render got there, or whether a rewind
/// made one go over the same frames again.
///
/// Thread rules: owned by one thread (the real-time thread's voice, or a replay); made with its
/// storage reserved, so `start`, `record` and `forget` allocate nothing while the checkpoints fit.
final class VoiceOscillator: @unchecked Sendable {
    /// Where the oscillator took over (nil until it has), with its phase there: the plain
    /// render's exact phase.
    private(set) var start: StreamFrame?
    /// (frame, phase on reaching it), in frame order.
    private(set) var checkpoints: [(frame: StreamFrame, phase: UInt64)]
    private let capacity: Int

    init(capacity: Int = 256) {
        self.capacity = capacity
        checkpoints = []
        checkpoints.reserveCapacity(capacity)
    }

    /// Takes over at `frame` with `phase`; does nothing once started.
    func start(at frame: StreamFrame, phase: UInt64) {
        guard start == nil else { return }
        start = frame
        checkpoints.append((frame, phase))
    }

    /// The last checkpoint at or before `frame` (the first when none is later).
    func checkpoint(atOrBefore frame: StreamFrame) -> (frame: StreamFrame, phase: UInt64) {
        var i = checkpoints.count - 1
        while i > 0, checkpoints[i].frame > frame { i -= 1 }
        return checkpoints[i]
    }

    /// Drops the checkpoints after `frame` (never the start): what a render from `frame` on
    /// replaces — after a rewind, or a command that changes the state there, they are stale.
    func discard(after frame: StreamFrame) {
        while checkpoints.count > 1, let last = checkpoints.last, last.frame > frame { checkpoints.removeLast() }
    }

    /// Notes the phase on reaching `frame`; later checkpoints go (a rewound tail, or a state
    /// that changed there).
    func record(_ phase: UInt64, at frame: StreamFrame) {
        while checkpoints.count > 1, let last = checkpoints.last, last.frame >= frame { checkpoints.removeLast() }
        if let last = checkpoints.last, last.frame == frame { return }
        if checkpoints.count >= capacity { checkpoints.remove(at: 1) }
        checkpoints.append((frame, phase))
    }

    /// Drops checkpoints no render from `frame` on needs (all but the last at or before it).
    func forget(before frame: StreamFrame) {
        var keep = 0
        while keep + 1 < checkpoints.count, checkpoints[keep + 1].frame <= frame { keep += 1 }
        if keep > 0 { checkpoints.removeFirst(keep) }
    }
}
