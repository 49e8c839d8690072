import PulsarCore

/// The audio of a preset: where it is, its bytes (streamed through `ByteSource`), volume and offset.
public struct AudioAsset: @unchecked Sendable {
    /// Path inside the bundle (the manifest's `src`).
    public var source: String
    /// The encoded file's bytes (random access; streamed, not loaded whole).
    public var bytes: ByteSource
    /// Linear volume, default 1.
    public var volume: Double
    /// Offset in ms of the audio against the pattern: positive delays it, negative trims its start.
    public var offset: Double

    public init(source: String, bytes: ByteSource, volume: Double = 1, offset: Double = 0) {
        self.source = source
        self.bytes = bytes
        self.volume = volume
        self.offset = offset
    }
}

/// The animation of a preset: its bytes and the timing the manifest gives (when it does).
public struct AnimationAsset: Sendable {
    public var source: String
    public var data: [UInt8]
    public var frameRate: Double?
    public var totalFrames: Double?

    public init(source: String, data: [UInt8], frameRate: Double? = nil, totalFrames: Double? = nil) {
        self.source = source
        self.data = data
        self.frameRate = frameRate
        self.totalFrames = totalFrames
    }

    /// The animation's frames a second as every reader takes it (the duration rule,
    /// docs/mixing.md): the Lottie JSON's own `fr` when the bytes read as Lottie, else the
    /// manifest's `frameRate`.
    public var effectiveFrameRate: Double? { LottieTiming(lottieJSON: data)?.frameRate ?? frameRate }
}

/// One preset of a bundle: a haptic pattern with optional audio and animation, or audio alone.
///
/// Thread rules: a value; its `audio.bytes` source is for one thread at a time.
public struct PresetHandle: @unchecked Sendable {
    public var id: String
    public var name: String
    /// Authored duration in ms, 0 when the manifest gives none.
    public var duration: Double
    public var pattern: PatternData
    public var audio: AudioAsset?
    public var animation: AnimationAsset?
    /// False for a preset of audio alone (its manifest names no haptics): `pattern` is then
    /// empty until a player derives one from the audio (docs/derive.md).
    public var hasPattern: Bool
    /// How the pattern was derived from the audio, when the manifest says it was.
    public var derived: BundleManifest.Derived?
    /// For a pattern read from a `.haptic` file, its values as written (what a burst actuator's
    /// renderer reads, docs/actuators.md); nil otherwise.
    public var lofeltClip: LofeltClip?
    /// The actuator the manifest names for this preset (a shipped actuator's name), if any.
    public var actuator: String?

    public init(id: String, name: String, duration: Double, pattern: PatternData, audio: AudioAsset? = nil, animation: AnimationAsset? = nil,
                hasPattern: Bool = true, derived: BundleManifest.Derived? = nil) {
        self.hasPattern = hasPattern
        self.derived = derived
        self.id = id
        self.name = name
        self.duration = duration
        self.pattern = pattern
        self.audio = audio
        self.animation = animation
    }

    public var hasAudio: Bool { audio != nil }
    public var hasAnimation: Bool { animation != nil }
}
