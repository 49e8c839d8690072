import PulsarCore
import PulsarLottie

/// What `pulsar video` refuses before it creates any file, in one line ending in its rule: an
/// option the limits, the container or its codecs cannot take (exit 64), or an input whose own
/// picture is too large (exit 65).
public struct VideoRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// The input's own content is at fault (exit 65), not an option (exit 64).
    public var isInput: Bool
    /// `--rate 192000: out.mp4's AAC audio takes … [rate-not-supported]`.
    public var message: String

    public init(_ message: String, isInput: Bool = false) {
        self.message = message
        self.isInput = isInput
    }

    init(_ error: RangeError, subject: String) {
        self.init("\(subject): \(error.quantity) \(Self.number(error.value)) \(error.requirement) [\(error.rule.rawValue)]")
    }

    public var description: String { message }

    static func number(_ value: Double) -> String { value.isFinite ? JSONWriter.format(value) : "\(value)" }
}

// MARK: Frame rates

extension VideoFrameRate {
    /// `text` as `--fps` takes it — `N`, `N.DDDD` (at most 4 decimals) or `N/D`, digits only —,
    /// every number range-checked before it is converted: each term of `N/D` in 1 … 2³¹ − 1, the
    /// rate in 1 … 120 frames a second.
    public static func parse(_ text: String, option: String = "--fps") throws(VideoRefusal) -> VideoFrameRate {
        let subject = "\(option) \(MessageText.excerpt(text, limit: 40))"
        let terms = try self.terms(text, subject: subject)
        if let rate = VideoFrameRate(numerator: terms.numerator, denominator: terms.denominator) { return rate }
        let value = Double(terms.numerator) / Double(terms.denominator)
        throw VideoRefusal("\(subject): the rate \(VideoRefusal.number(value)) must be in \(minimum)...\(maximum) frames a second [value-out-of-range]")
    }

    /// The numerator and denominator as written, each checked.
    private static func terms(_ text: String, subject: String) throws(VideoRefusal) -> (numerator: Int, denominator: Int) {
        let isDigits = { (s: Substring) in !s.isEmpty && s.utf8.allSatisfy { (48...57).contains($0) } }
        let slash = text.split(separator: "/", omittingEmptySubsequences: false)
        if slash.count == 2, isDigits(slash[0]), isDigits(slash[1]) {
            return (try term(slash[0], "the numerator", subject: subject), try term(slash[1], "the denominator", subject: subject))
        }
        let dot = text.split(separator: ".", omittingEmptySubsequences: false)
        guard slash.count == 1, (1...2).contains(dot.count), isDigits(dot[0]), dot.count == 1 || (isDigits(dot[1]) && dot[1].count <= 4) else {
            throw VideoRefusal("\(subject): a frame rate is N, N.DDDD (at most 4 decimals) or N/D in digits [not-a-frame-rate]")
        }
        do {
            // Digits only: Double reads any length; the range is checked before Int converts.
            _ = try Limits.number(Double(text) ?? .infinity, "the rate", in: Double(minimum)...Double(maximum))
        } catch {
            throw VideoRefusal("\(subject): the rate \(VideoRefusal.number(error.value)) must be in \(minimum)...\(maximum) frames a second [value-out-of-range]")
        }
        let scale = dot.count == 2 ? [1, 10, 100, 1000, 10_000][dot[1].count] : 1
        return (Int(dot[0])! * scale + (dot.count == 2 ? Int(dot[1])! : 0), scale)
    }

    private static func term(_ digits: Substring, _ what: String, subject: String) throws(VideoRefusal) -> Int {
        do {
            return try Limits.integer(Double(digits) ?? .infinity, what, in: 1...maximumTerm)
        } catch {
            throw VideoRefusal(RangeError(what, error.value, error.rule, error.requirement + " (FFmpeg's AVRational takes 32-bit terms)"),
                               subject: subject)
        }
    }
}

// MARK: Sample rates

extension VideoContainer {
    /// The audio codec, as the messages name it.
    public var audioCodecName: String {
        switch self {
        case .mp4: return "AAC"
        case .mkv: return "FLAC"
        case .webm: return "Opus"
        }
    }

    /// The rates FFmpeg's AAC encoder takes (MPEG-4's sampling-frequency table) within 8 … 192 kHz.
    public static let aacSampleRates = [8_000, 11_025, 12_000, 16_000, 22_050, 24_000, 32_000, 44_100, 48_000, 64_000, 88_200, 96_000]

    /// Whether its audio codec takes `hertz` (a rate `SampleRate.supported` holds): AAC its table;
    /// FLAC below 65 535 Hz, or a multiple of 10 (its header's codes); Opus 48 000 Hz only.
    public func takes(sampleRate hertz: Int) -> Bool {
        switch self {
        case .mp4: return Self.aacSampleRates.contains(hertz)
        case .mkv: return hertz < 65_535 || hertz % 10 == 0
        case .webm: return hertz == 48_000
        }
    }

    /// The rates `takes(sampleRate:)` accepts, in words.
    public var sampleRateRule: String {
        switch self {
        case .mp4: return Self.aacSampleRates.dropLast().map(String.init).joined(separator: ", ") + " or 96000 Hz"
        case .mkv: return "8000...65534 Hz, or a multiple of 10 up to 192000 Hz"
        case .webm: return "48000 Hz only"
        }
    }
}

// MARK: Pictures

/// The largest picture a video has: that of any render target (`LottieLimits`), so that every
/// buffer of a frame, the encoder's included, stays within 64 MiB.
public enum VideoPicture {
    /// The longest side, in pixels.
    public static let maximumSide = LottieLimits.maximumCanvasSide
    /// The most pixels (4096 × 4096).
    public static let maximumPixels = LottieLimits.maximumCanvasPixels

    /// Whether `width × height` is within both.
    public static func fits(width: Int, height: Int) -> Bool {
        (1...maximumSide).contains(width) && (1...maximumSide).contains(height) && width * height <= maximumPixels
    }

    /// The rule in words.
    public static var rule: String { "\(maximumSide) px a side and 4096×4096 pixels" }
}

// MARK: The options

/// The options `pulsar video` checks before it reads its input or creates any file, as the
/// command gives them (text, and the rate `RenderSetup` has checked), and the checks of what
/// they make of the input: the picture's size and the video's length. The fuzz target
/// `video-options` runs exactly these.
public struct VideoOptions: Sendable {
    public var container: VideoContainer
    /// `--fps`; nil: the animation's own.
    public var frameRate: VideoFrameRate?
    public var sampleRate: Int
    /// `--max-duration`: the longest video written, in seconds.
    public var maximumSeconds: Double

    /// An hour: a longer video needs `--max-duration`.
    public static let defaultMaximumSeconds: Double = 3600
    /// Frames a second of an input without animation, unless --fps says.
    public static let framesPerSecondWithoutAnimation = VideoFrameRate(numerator: 30, denominator: 1)!

    /// The container `output`'s extension names.
    public static func container(output: String) throws(VideoRefusal) -> VideoContainer {
        guard let container = VideoContainer(forOutput: output) else {
            throw VideoRefusal("-o \(MessageText.excerpt(output)): the name must end in .mp4, .mkv or .webm [video-container]")
        }
        return container
    }

    public init(container: VideoContainer, output: String, fps: String?, sampleRate: Int, maxDuration: String?) throws(VideoRefusal) {
        guard container.takes(sampleRate: sampleRate) else {
            throw VideoRefusal("--rate \(sampleRate): \(MessageText.excerpt(PathText.lastComponent(output), limit: 40))'s "
                               + "\(container.audioCodecName) audio takes \(container.sampleRateRule) [rate-not-supported]")
        }
        self.container = container
        self.sampleRate = sampleRate
        frameRate = try fps.map { text throws(VideoRefusal) in try VideoFrameRate.parse(text) }
        maximumSeconds = try maxDuration.map { text throws(VideoRefusal) in try Self.seconds(text) } ?? Self.defaultMaximumSeconds
    }

    /// `--max-duration SECONDS`: a number, 0 … 24 h.
    static func seconds(_ text: String) throws(VideoRefusal) -> Double {
        let subject = "--max-duration \(MessageText.excerpt(text, limit: 40))"
        guard let value = Double(text) else { throw VideoRefusal("\(subject): give a number of seconds [not-a-number]") }
        do {
            return try Limits.seconds(value, "--max-duration")
        } catch {
            throw VideoRefusal("\(subject): \(VideoRefusal.number(error.value)) s \(error.requirement) [\(error.rule.rawValue)]")
        }
    }

    /// The frame rate: `--fps`, else the animation's `fr` (`animationRate`; nil: no animation, 30).
    public func frameRate(animationRate: Double?, input: String) throws(VideoRefusal) -> VideoFrameRate {
        if let frameRate { return frameRate }
        guard let fr = animationRate else { return Self.framesPerSecondWithoutAnimation }
        guard let own = VideoFrameRate(approximating: fr) else {
            throw VideoRefusal("\(MessageText.excerpt(input, limit: 64)): the animation runs at \(VideoRefusal.number(fr)) fps, outside "
                               + "\(VideoFrameRate.minimum)...\(VideoFrameRate.maximum): give --fps [value-out-of-range]")
        }
        return own
    }

    /// Refuses a picture beyond `VideoPicture` or with an odd side: `--size` (64) when `given`,
    /// else the size the input makes (65, with `origin`: what it was made from).
    public func checkPicture(width: Int, height: Int, given: Bool, input: String, origin: String) throws(VideoRefusal) {
        if given {
            guard VideoPicture.fits(width: width, height: height) else {
                throw VideoRefusal("--size \(width)x\(height): a video's picture has at most \(VideoPicture.rule) [picture-too-large]")
            }
            guard width % 2 == 0, height % 2 == 0 else {
                throw VideoRefusal("--size \(width)x\(height): both sides must be even (yuv420p video) [odd-size]")
            }
            return
        }
        guard VideoPicture.fits(width: width, height: height) else {
            throw VideoRefusal("\(MessageText.excerpt(input, limit: 64)): the picture would be \(width)×\(height) (\(origin)), beyond "
                               + "\(VideoPicture.rule): give --size [picture-too-large]", isInput: true)
        }
    }

    /// Refuses a video that would last longer than `maximumSeconds`, saying how long it would
    /// be and what allows it (64).
    public func checkLength(_ schedule: FrameSchedule, input: String) throws(VideoRefusal) {
        let seconds = schedule.seconds
        guard seconds > maximumSeconds else { return }
        let most = Limits.maximumMilliseconds / 1000
        let allow = seconds <= most
            ? "--max-duration \(VideoRefusal.number((seconds).rounded(.up))) writes it"
            : "no video lasts more than 24 h: shorten it with --to, --loop or --duration"
        throw VideoRefusal("\(MessageText.excerpt(input, limit: 64)): the video would last \(Self.spoken(seconds)) "
                           + "(\(schedule.slotCount) frames at \(schedule.frameRate) fps), more than the \(VideoRefusal.number(maximumSeconds)) s "
                           + "--max-duration allows; \(allow) [video-too-long]")
    }

    /// `23 h 59 min`, `12 min 5 s`, `42.5 s`.
    static func spoken(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds < 1e12 else { return "without end" }
        let whole = Int(seconds)
        if whole >= 3600 { return "\(whole / 3600) h \(whole / 60 % 60) min" }
        if whole >= 60 { return "\(whole / 60) min \(whole % 60) s" }
        return "\(VideoRefusal.number((seconds * 1000).rounded() / 1000)) s"
    }
}
