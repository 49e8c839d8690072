import FuzzDriver

/// libFuzzer's `main` for the `script-play` target (SwiftPM names an executable's entry `fuzz_script_play_main`).
@_cdecl("fuzz_script_play_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer("script-play", argc, argv)
}
