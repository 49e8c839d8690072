import PulsarCore

/// A voice's live parameters as a command reaches them: its intensity, its sharpness (and the
/// oscillator that takes over at the first change of it), a realtime voice's positions.
protocol CommandParameters {
    mutating func applyIntensity(_ target: ParameterTrack.Target, at frame: StreamFrame)
    /// `state`: the voice's transport state at `frame` (a parameter command does not change it).
    mutating func applySharpness(_ target: ParameterTrack.Target, at frame: StreamFrame, state: TransportState)
    mutating func applyPosition(ms: Double, at frame: StreamFrame)
}

/// What a command does to a voice's live parameters at its effective frame — read in one place,
/// by the engine as it applies the command (`EngineCore.apply`, real-time thread) and by the
/// replay as it rebuilds the voice from the log (`Replay.init`). The transport state's own
/// change is `TransportState.applying`; the master gain is the engine's, not a voice's.
enum CommandEffects {
    static func apply(_ command: EngineCommand, at frame: StreamFrame, state: TransportState, to voice: inout some CommandParameters) {
        switch command {
        case .parameter(.intensity, let target): voice.applyIntensity(target, at: frame)
        case .parameter(.sharpness, let target): voice.applySharpness(target, at: frame, state: state)
        case .position(let ms): voice.applyPosition(ms: ms, at: frame)
        case .play, .pause, .resume, .stop, .seek, .cue, .mix, .attach, .steal, .parameter: break
        }
    }
}

extension VoiceCore: CommandParameters {
    func applyIntensity(_ target: ParameterTrack.Target, at frame: StreamFrame) {
        intensity.apply(target, at: frame)
    }

    /// A realtime voice's frequency is its content's: sharpness does not move it.
    func applySharpness(_ target: ParameterTrack.Target, at frame: StreamFrame, state: TransportState) {
        guard realtime == nil else { return }
        oscillator.start(at: frame, phase: renderer.mixers.mixer(state.mix).hapticPhaseTurns(at: state.position(atStreamFrame: frame)))
        sharpness.apply(target, at: frame)
    }

    func applyPosition(ms: Double, at frame: StreamFrame) {
        realtime?.apply(positionMs: ms, at: frame)
    }
}

extension Replay.Voice: CommandParameters {
    mutating func applyIntensity(_ target: ParameterTrack.Target, at frame: StreamFrame) {
        intensity.apply(target, at: frame)
    }

    /// The oscillator's start is kept as the live one took it: at the first change.
    mutating func applySharpness(_ target: ParameterTrack.Target, at frame: StreamFrame, state: TransportState) {
        if oscillatorStart == nil { oscillatorStart = (frame, state) }
        sharpness.apply(target, at: frame)
    }

    mutating func applyPosition(ms: Double, at frame: StreamFrame) {
        positions.append((ms, frame))
    }
}
