import PulsarAudio
import PulsarCore
import Synchronization

/// One voice as the real-time thread holds it: its own mixers (generation 0 and every live
/// change of its loop, segment, offset, haptics or gains — `MixerTable`), its transport state and
/// when it will end. A live change is local to its voice: nothing of another voice moves.
///
/// Thread rules: made and put in an engine slot by the control thread before the `attach` that
/// names the slot crosses the command queue; from then on read and written by the real-time
/// thread only, until it reports the voice `detached`; the control thread drops it after that.
/// Its admission count (`admit`, `applied`, `leave`) is the one part both threads touch.
final class VoiceCore: @unchecked Sendable {
    /// The voice's mixers by generation (live changes), and the renderer over them.
    let renderer: TransportRenderer
    /// The engine's id for the voice (unique over the engine's life; slots are reused).
    let id: Int
    /// Leaves the mix once it has ended (completed, stopped or stolen); a player's voice stays.
    let endsByItself: Bool
    /// The voice's transport (real-time thread).
    var state = TransportState.initial
    /// Where the playing state runs off its timeline's end (real-time thread).
    var pendingCompletion: StreamFrame?
    /// Where a stolen voice's fade-out ends (real-time thread).
    var stolenUntil: StreamFrame?
    /// It has ended (completed, stopped or its steal's fade over) and not started again
    /// (real-time thread).
    var ended = false
    /// A block has mixed it: from then on what it sounded reached the device, and a steal fades
    /// it out (real-time thread).
    var mixed = false
    /// Its intensity, a multiplier on its haptics (real-time thread).
    var intensity = ParameterTrack(initial: 1, capacity: ParameterTrack.voiceCapacity)
    /// Its sharpness, an offset of its frequency parameter, and the oscillator its haptics run
    /// on from the first change of it (real-time thread; the oscillator's storage is made here).
    var sharpness = ParameterTrack(initial: 0, capacity: ParameterTrack.voiceCapacity)
    let oscillator = VoiceOscillator()

    /// A `.realtime` voice's course (nil for a voice that plays its timeline).
    var realtime: RealtimeTrack?

    /// Commands queued for the voice and not yet applied, or −1 once it has left the mix. A
    /// producer admits a command only while the voice has not left, and the real-time thread
    /// lets the voice leave only while none is in flight: a command the queue accepted never
    /// reaches a voice that has left (it would be dropped, and a producer told it was sent).
    private let admissions = Atomic<Int>(0)

    /// Counts one more command in flight; false once the voice has left. Producers, under the
    /// engine's producers' lock.
    func admit() -> Bool {
        var current = admissions.load(ordering: .acquiring)
        while current >= 0 {
            let (exchanged, original) = admissions.compareExchange(expected: current, desired: current + 1, ordering: .acquiringAndReleasing)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// One command in flight fewer: the queue refused it (producer) or it was applied (real-time
    /// thread).
    func applied() {
        admissions.subtract(1, ordering: .releasing)
    }

    /// Closes the voice to commands if none is in flight; true when it may leave the mix now.
    /// Real-time thread.
    func leave() -> Bool {
        admissions.compareExchange(expected: 0, desired: -1, ordering: .acquiringAndReleasing).exchanged
    }

    init(renderer: TransportRenderer, id: Int, endsByItself: Bool, realtime: RealtimeTrack? = nil) {
        self.renderer = renderer
        self.id = id
        self.endsByItself = endsByItself
        self.realtime = realtime
    }

    /// The state after `command` takes effect at stream frame `frame`. Real-time thread.
    func applying(_ command: EngineCommand, at frame: StreamFrame, fadeLength: Int) -> TransportState {
        switch command {
        case .mix(let change):
            return state.switching(to: change.generation, from: renderer.mixers.mixer(state.mix).timeline,
                                   to: renderer.mixers.mixer(change.generation).timeline, atStreamFrame: frame, fadeLength: fadeLength)
        case .steal:
            return state.applying(.pause, atStreamFrame: frame)
        case .attach:
            return TransportState(mode: .stopped, timelineFrame: .zero, anchor: frame, mix: state.mix)
        default:
            return state.applying(command, atStreamFrame: frame)
        }
    }
}
