/// The float → integer sample conversions of every integer output: an ALSA device's `S16_LE` and
/// `S32_LE`, the simulated device's integer formats, and `s16` / `s24` WAV files.
///
/// A sample is scaled by 2ⁿ⁻¹ for n bits (the inverse of ALSA's and PipeWire's integer → float
/// scaling, so k / 2ⁿ⁻¹ round-trips exactly), rounded to the nearest integer (ties to even, as
/// libsndfile's `lrintf`) and saturated: full scale and beyond (+∞ included) is the largest
/// integer, −full scale and below (−∞ included) the smallest. NaN is 0. No input traps.
///
/// Real-time safe: plain arithmetic, no allocation, no lock; callable from any thread.
public enum SampleConversion {
    /// `x` as a signed 16-bit sample.
    @inline(__always)
    public static func int16(_ x: Float) -> Int16 {
        let scaled = (x * 32_768).rounded(.toNearestOrEven)
        if scaled >= 32_767 { return .max }
        if scaled <= -32_768 { return .min }
        return scaled.isNaN ? 0 : Int16(scaled)
    }

    /// `x` as a signed 24-bit sample (in −8 388 608 … 8 388 607).
    @inline(__always)
    public static func int24(_ x: Float) -> Int32 {
        let scaled = (x * 8_388_608).rounded(.toNearestOrEven)
        if scaled >= 8_388_607 { return 8_388_607 }
        if scaled <= -8_388_608 { return -8_388_608 }
        return scaled.isNaN ? 0 : Int32(scaled)
    }

    /// `x` as a signed 32-bit sample. The largest float below 2³¹ is 2³¹ − 128, so every rounded
    /// value under the cap converts exactly.
    @inline(__always)
    public static func int32(_ x: Float) -> Int32 {
        let scaled = (x * 2_147_483_648).rounded(.toNearestOrEven)
        if scaled >= 2_147_483_648 { return .max }
        if scaled <= -2_147_483_648 { return .min }
        return scaled.isNaN ? 0 : Int32(scaled)
    }

    /// `count` samples from `source` into `target` through `int16`.
    public static func convert(_ source: UnsafePointer<Float>, count: Int, into target: UnsafeMutablePointer<Int16>) {
        for i in 0..<count { target[i] = int16(source[i]) }
    }

    /// `count` samples from `source` into `target` through `int32`.
    public static func convert(_ source: UnsafePointer<Float>, count: Int, into target: UnsafeMutablePointer<Int32>) {
        for i in 0..<count { target[i] = int32(source[i]) }
    }

    /// `count` samples from `source` into `target` through `int24`, each shifted into the top 24
    /// bits of an `Int32` (how libsndfile takes 24-bit samples from `sf_write_int`).
    public static func convert(_ source: UnsafePointer<Float>, count: Int, into24 target: UnsafeMutablePointer<Int32>) {
        for i in 0..<count { target[i] = int24(source[i]) << 8 }
    }
}
