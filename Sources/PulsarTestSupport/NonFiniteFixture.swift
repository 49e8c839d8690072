import Foundation

/// A bundle whose float audio holds NaN, +∞ and −∞ among ordinary samples: 100 ms of stereo at
/// 48 kHz (left a 440 Hz sine of amplitude 0.5, right a 660 Hz sine of amplitude 0.25) with 11
/// non-finite samples at the interleaved indices of `nonFinitePositions`, some in both channels
/// of a frame, one on each side of a 4096-frame block boundary, and the last frame's two.
public enum NonFiniteFixture {
    public static let rate = 48_000
    public static let channels = 2
    public static let frames = 4_800
    /// Interleaved sample index → the non-finite value written there.
    public static let nonFiniteValues: [Int: Float] = [
        100: .nan, 101: .nan, 1_001: .infinity, 2_000: -.infinity, 4_000: .nan, 5_003: .infinity,
        7_000: -.infinity, 7_001: -.nan, 8_192: .nan, 9_598: .infinity, 9_599: -.infinity,
    ]
    /// The indices of `nonFiniteValues`, ascending.
    public static let nonFinitePositions: [Int] = nonFiniteValues.keys.sorted()
    /// How many non-finite samples the file holds, counted by hand.
    public static let nonFiniteCount = 11

    /// The file's samples, interleaved; one `sin` per sample.
    public static let samples: [Float] = {
        var out = [Float](repeating: 0, count: frames * channels)
        for i in 0..<frames {
            let t = Double(i) / Double(rate)
            out[2 * i] = Float(0.5 * sin(2 * Double.pi * 440 * t))
            out[2 * i + 1] = Float(0.25 * sin(2 * Double.pi * 660 * t))
        }
        for (index, value) in nonFiniteValues { out[index] = value }
        return out
    }()

    /// The samples with every non-finite one replaced by 0: what decoding must yield.
    public static let sanitized: [Float] = samples.map { $0.isFinite ? $0 : 0 }

    /// A 100 ms tap: the preset's haptics.
    public static let pattern = """
        {"continuousPattern": {"amplitude": [{"time": 0, "value": 0.6}, {"time": 100, "value": 0.6}],
                               "frequency": [{"time": 0, "value": 0.5}]}}
        """

    /// Writes an unpacked bundle into `directory` (created) with one preset, `nan`, whose audio
    /// `audio/nan.wav` is written by `writeAudio(path, samples, rate, channels)` (a float WAV).
    /// Returns the bundle's path.
    public static func writeBundle(in directory: String,
                                   writeAudio: (String, [Float], Int, Int) throws -> Void) throws -> String {
        let fm = FileManager.default
        let bundle = directory + "/nan-bundle"
        try fm.createDirectory(atPath: bundle + "/audio", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: bundle + "/haptics", withIntermediateDirectories: true)
        try pattern.write(toFile: bundle + "/haptics/tap.json", atomically: true, encoding: .utf8)
        try writeAudio(bundle + "/audio/nan.wav", samples, rate, channels)
        let manifest = """
            {"schema": "pulsar.bundle/1", "id": "com.example.nonfinite", "name": "Non-finite", "revision": 1,
             "presets": [{"id": "nan", "name": "NaN", "duration": 100, "haptics": "haptics/tap.json",
                          "audio": {"src": "audio/nan.wav", "volume": 1.0, "offset": 0}}]}
            """
        try manifest.write(toFile: bundle + "/manifest.json", atomically: true, encoding: .utf8)
        return bundle
    }
}
