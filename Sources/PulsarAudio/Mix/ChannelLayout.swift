/// How the output channels are fed: each output channel is the sum of one or more sources —
/// the preset audio's left, right or mono mix, the haptic render, or silence.
///
/// A plain value type: safe from any thread.
public struct ChannelLayout: Hashable, Sendable, CustomStringConvertible {
    public enum Source: String, Hashable, Sendable {
        /// Audio left channel (mono audio: the mono signal).
        case left = "L"
        /// Audio right channel (mono audio: the mono signal).
        case right = "R"
        /// Audio mixed to mono, (L + R) / 2.
        case mono = "M"
        /// The haptic render.
        case haptic = "H"
        /// Nothing.
        case silence = "0"
    }

    public let name: String
    /// Per output channel, the sources summed into it.
    public let channels: [[Source]]

    public init(name: String, channels: [[Source]]) {
        self.name = name
        self.channels = channels
    }

    public var channelCount: Int { channels.count }
    public var description: String { name }

    /// Haptics summed into both audio channels: one output driving speakers and a bass shaker.
    public static let mix = ChannelLayout(name: "mix", channels: [[.left, .haptic], [.right, .haptic]])
    /// Three channels: audio left, audio right, haptics.
    public static let stereoHaptic = ChannelLayout(name: "stereo+haptic", channels: [[.left], [.right], [.haptic]])
    /// Four channels as a DualSense over USB takes them: audio L, R, haptic left, haptic right.
    public static let quad = ChannelLayout(name: "quad", channels: [[.left], [.right], [.haptic], [.haptic]])
    /// Haptics only, mono.
    public static let haptic = ChannelLayout(name: "haptic", channels: [[.haptic]])

    /// Android's haptic-coupled audio: L, R, then the haptic channel last (`ANDROID_HAPTIC=1`).
    public static let android = ChannelLayout(name: "android", channels: [[.left], [.right], [.haptic]])
    public static let named: [ChannelLayout] = [.mix, .stereoHaptic, .quad, .haptic, .android]

    /// Android's `ANDROID_HAPTIC=N` for this layout: the channels at its end that carry the
    /// haptic source alone, when there are 1 or 2 after at least one other (what Android
    /// reads), else nil.
    public var androidHapticChannels: Int? {
        let n = channels.reversed().prefix { $0 == [.haptic] }.count
        return (1...2).contains(n) && channels.count > n ? n : nil
    }

    /// A named layout, or a channel map: output channels separated by `,`, each a `+`-joined list
    /// of `L`, `R`, `M`, `H`, `0` — e.g. `L+H,R+H` (= mix) or `H,H,0,0`. At most 32 channels.
    public init?(parsing text: String) {
        if let known = Self.named.first(where: { $0.name == text }) {
            self = known
            return
        }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard !parts.isEmpty, parts.count <= 32 else { return nil }
        var channels: [[Source]] = []
        for part in parts {
            let tokens = part.split(separator: "+", omittingEmptySubsequences: false)
            var sources: [Source] = []
            for token in tokens {
                guard let s = Source(rawValue: token.trimmingCharacters(in: " ").uppercased()) else { return nil }
                sources.append(s)
            }
            guard !sources.isEmpty else { return nil }
            channels.append(sources)
        }
        self.init(name: text, channels: channels)
    }

    /// How many audio channels the mixer needs from the audio stream: 2 when a channel takes
    /// `L` or `R`, 1 when only `M` is used, 0 when no channel takes audio.
    public var audioChannelsNeeded: Int {
        let all = Set(channels.joined())
        if all.contains(.left) || all.contains(.right) { return 2 }
        return all.contains(.mono) ? 1 : 0
    }

    /// Whether any channel takes the haptic render.
    public var usesHaptics: Bool { channels.contains { $0.contains(.haptic) } }
}

private extension Substring {
    func trimmingCharacters(in set: Character) -> String {
        String(drop(while: { $0 == set }).reversed().drop(while: { $0 == set }).reversed())
    }
}
