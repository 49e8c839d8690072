#if canImport(Glibc)
import Glibc
#endif

/// The C API of libpulsar (include/pulsar.h) as a C program reaches it: its `pulsar_*` symbols,
/// looked up in the process (a fuzz target linked with the library) or in `libPulsarC.so` beside
/// the running executable (`make test`'s build), called through C function pointers. Immutable:
/// any thread.
public struct CAPI: @unchecked Sendable {
    typealias Handle = OpaquePointer?
    typealias Completion = @convention(c) (OpaquePointer?, Int32, UnsafeMutableRawPointer?) -> Void

    let patternFromMemory: @convention(c) (UnsafeRawPointer?, Int, UnsafeMutablePointer<Handle>?) -> Int32
    let patternFree: @convention(c) (Handle) -> Void
    let mixFromPattern: @convention(c) (Handle, UnsafeRawPointer?, UnsafeMutablePointer<Handle>?) -> Int32
    let mixChannels: @convention(c) (Handle) -> Int32
    let mixFrames: @convention(c) (Handle) -> Int64
    let mixRender: @convention(c) (Handle, Int64, UnsafeMutablePointer<Float>?, Int64) -> Int32
    let mixFree: @convention(c) (Handle) -> Void
    let followerCreate: @convention(c) (UnsafeRawPointer?, UnsafeMutablePointer<Handle>?) -> Int32
    let followerProcess: @convention(c) (Handle, UnsafePointer<Float>?, Int32, Int64, UnsafeMutablePointer<Float>?) -> Int32
    let followerOnsets: @convention(c) (Handle) -> Int64
    let followerFree: @convention(c) (Handle) -> Void
    let engineCreate: @convention(c) (UnsafeRawPointer?, UnsafeMutablePointer<Handle>?) -> Int32
    let enginePoll: @convention(c) (Handle) -> Int32
    let engineTime: @convention(c) (Handle) -> Double
    let engineIsIdle: @convention(c) (Handle) -> Int32
    let engineSetMasterGain: @convention(c) (Handle, Double, Double) -> Int32
    let engineStop: @convention(c) (Handle) -> Int32
    let engineFree: @convention(c) (Handle) -> Void
    let engineVoice: @convention(c) (Handle, Handle, Int32, Int32, UnsafeMutablePointer<Handle>?) -> Int32
    let voiceFree: @convention(c) (Handle) -> Void
    /// play, play_at, seek, set_content_time: (voice, double).
    let voiceTimed: [@convention(c) (Handle, Double) -> Int32]
    /// pause, resume, stop, has_ended: (voice).
    let voicePlain: [@convention(c) (Handle) -> Int32]
    /// set_intensity, set_sharpness: (voice, value, seconds).
    let voiceRamp: [@convention(c) (Handle, Double, Double) -> Int32]
    let voiceIntensityCurve: @convention(c) (Handle, UnsafePointer<Double>?, UnsafePointer<Double>?, Int32) -> Int32
    /// content_ms, animation_frame.
    let voiceClock: [@convention(c) (Handle) -> Double]
    let voiceOnCompletion: @convention(c) (Handle, Completion?, UnsafeMutableRawPointer?) -> Int32
    let lastError: @convention(c) () -> UnsafePointer<CChar>?

    /// Whether libpulsar's symbols were found (`make test` replays `capi` findings only then).
    public static var isAvailable: Bool { loaded != nil }

    /// The library, once per process; nil when it is neither linked in nor beside the executable.
    static let loaded: CAPI? = load()

    private struct Missing: Error {}

    private static func load() -> CAPI? {
        guard let library = library() else { return nil }
        func f<T>(_ name: String) throws -> T {
            guard let symbol = dlsym(library.pointer, "pulsar_" + name) else { throw Missing() }
            return unsafeBitCast(symbol, to: T.self)
        }
        return try? CAPI(
            patternFromMemory: f("pattern_from_memory"), patternFree: f("pattern_free"), mixFromPattern: f("mix_from_pattern"),
            mixChannels: f("mix_channels"), mixFrames: f("mix_frames"), mixRender: f("mix_render"), mixFree: f("mix_free"),
            followerCreate: f("follower_create"), followerProcess: f("follower_process"), followerOnsets: f("follower_onsets"),
            followerFree: f("follower_free"),
            engineCreate: f("engine_create"), enginePoll: f("engine_poll"), engineTime: f("engine_time"), engineIsIdle: f("engine_is_idle"),
            engineSetMasterGain: f("engine_set_master_gain"), engineStop: f("engine_stop"), engineFree: f("engine_free"),
            engineVoice: f("engine_voice"), voiceFree: f("voice_free"),
            voiceTimed: [f("voice_play"), f("voice_play_at"), f("voice_seek"), f("voice_set_content_time")],
            voicePlain: [f("voice_pause"), f("voice_resume"), f("voice_stop"), f("voice_has_ended")],
            voiceRamp: [f("voice_set_intensity"), f("voice_set_sharpness")], voiceIntensityCurve: f("voice_set_intensity_curve"),
            voiceClock: [f("voice_content_ms"), f("voice_animation_frame")], voiceOnCompletion: f("voice_on_completion"),
            lastError: f("last_error"))
    }

    /// Where the symbols are: the process itself (RTLD_DEFAULT, a null pointer) when it has them.
    private static func library() -> (pointer: UnsafeMutableRawPointer?, Void)? {
        if dlsym(nil, "pulsar_engine_create") != nil { return (nil, ()) }
        guard let exe = realpath("/proc/self/exe", nil) else { return nil }
        let path = String(cString: exe)
        free(exe)
        let folder = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        guard let opened = dlopen(folder + "/libPulsarC.so", RTLD_NOW | RTLD_LOCAL) else { return nil }
        return (opened, ())
    }
}
