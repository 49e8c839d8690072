import PulsarCore
import PulsarDerive

/// What a `pulsar_follower` holds: the follower, used from one thread at a time.
final class FollowerBox {
    let follower: HapticFollower
    init(_ follower: HapticFollower) { self.follower = follower }
}

/// `pulsar_follower_options` (include/pulsar.h), as C lays it out.
public struct CFollowerOptions {
    var size: Int
    var sampleRate: Int32
    var method: UnsafePointer<CChar>?
    var profile: UnsafePointer<CChar>?
    var bandLow: Double
    var bandHigh: Double
    var gainDB: Double
    var gateDB: Double
    var attack: Double
    var release: Double
    var noTransients: Int32
}

/// Why `pulsar_follower_options` cannot be used, in one line.
struct FollowerOptionsProblem: Error {
    let message: String
}

/// The follower's rate and settings from `options` (NULL: the defaults), or why not.
func followerSettings(_ options: UnsafeRawPointer?) throws(FollowerOptionsProblem) -> (Int, FollowSettings) {
    var settings = FollowSettings()
    guard let options else { return (48_000, settings) }
    // The size first: nothing past what the caller's struct holds is read.
    let size = options.load(as: UInt.self)  // a size_t: any value, however large
    guard size >= MemoryLayout<CFollowerOptions>.size else {
        throw FollowerOptionsProblem(message: "pulsar_follower_options: size \(size) is less than sizeof(pulsar_follower_options) \(MemoryLayout<CFollowerOptions>.size): use PULSAR_FOLLOWER_OPTIONS_INIT")
    }
    let o = options.load(as: CFollowerOptions.self)
    let rate = o.sampleRate == 0 ? 48_000 : Int(o.sampleRate)
    if let m = o.method {
        guard let name = text(m), let method = FollowSettings.Method(rawValue: name) else {
            throw FollowerOptionsProblem(message: "pulsar_follower_options: method is not envelope or android")
        }
        settings.method = method
    }
    if let p = o.profile {
        guard let name = text(p), let profile = ActuatorProfile(parsing: name) else {
            throw FollowerOptionsProblem(message: "pulsar_follower_options: profile is not wideband, lra, lra:HZ or FMIN:FMAX")
        }
        settings.profile = profile
    }
    let low = o.bandLow == 0 ? settings.band.lowerBound : o.bandLow, high = o.bandHigh == 0 ? settings.band.upperBound : o.bandHigh
    guard low.isFinite, high.isFinite, low <= high else {
        throw FollowerOptionsProblem(message: "pulsar_follower_options: band \(low)...\(high) Hz: the low edge must be below the high edge")
    }
    settings.band = low...high
    if o.gainDB != 0 { settings.gainDB = o.gainDB }
    if o.gateDB != 0 { settings.gateDB = o.gateDB }
    if o.attack != 0 { settings.attackMilliseconds = o.attack }
    if o.release != 0 { settings.releaseMilliseconds = o.release }
    settings.transients = o.noTransients == 0
    return (rate, settings)
}

@_cdecl("pulsar_follower_create")
public func pulsar_follower_create(_ options: UnsafeRawPointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let out else { return Result.argument.failing("pulsar_follower_create: out is NULL") }
    out.pointee = nil
    do {
        let (rate, settings) = try followerSettings(options)
        do {
            out.pointee = Handles.make(FollowerBox(try HapticFollower(sampleRate: rate, settings: settings)))
            return Result.ok.rawValue
        } catch {
            return Result.argument.failing("pulsar_follower_create: \(error.message)")
        }
    } catch {
        return Result.argument.failing(error.message)
    }
}

@_cdecl("pulsar_follower_process")
public func pulsar_follower_process(_ follower: OpaquePointer?, _ input: UnsafePointer<Float>?, _ channels: Int32, _ frames: Int64,
                                    _ haptics: UnsafeMutablePointer<Float>?) -> Int32 {
    guard let box = Handles.object(follower, as: FollowerBox.self) else {
        return Result.argument.failing("pulsar_follower_process: not a live pulsar_follower")
    }
    guard let input, let haptics else { return Result.argument.failing("pulsar_follower_process: a NULL buffer (input or haptics)") }
    guard channels >= 1, channels <= 64 else { return Result.argument.failing("pulsar_follower_process: channels \(channels) is outside 1...64") }
    guard frames >= 0, frames <= Int64(Int32.max) / Int64(channels) else {
        return Result.argument.failing("pulsar_follower_process: frames \(frames) is not in 0...\(Int64(Int32.max) / Int64(channels)) (2^31 - 1 samples in all)")
    }
    box.follower.process(interleaved: UnsafeBufferPointer(start: input, count: Int(frames) * Int(channels)), channels: Int(channels),
                         output: UnsafeMutableBufferPointer(start: haptics, count: Int(frames)))
    return Result.ok.rawValue
}

@_cdecl("pulsar_follower_onsets")
public func pulsar_follower_onsets(_ follower: OpaquePointer?) -> Int64 {
    guard let box = Handles.object(follower, as: FollowerBox.self) else {
        return Int64(Result.argument.failing("pulsar_follower_onsets: not a live pulsar_follower"))
    }
    return Int64(box.follower.onsets)
}

@_cdecl("pulsar_follower_free")
public func pulsar_follower_free(_ follower: OpaquePointer?) {
    Handles.free(follower, as: FollowerBox.self, "pulsar_follower_free", kind: "pulsar_follower")
}
