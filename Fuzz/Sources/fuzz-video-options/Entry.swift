import FuzzDriver

/// libFuzzer's `main` for the `video-options` target (SwiftPM names an executable's entry `fuzz_video_options_main`).
@_cdecl("fuzz_video_options_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer("video-options", argc, argv)
}
