import FuzzDriver

/// libFuzzer's `main` for the `replay` target (SwiftPM names an executable's entry `fuzz_replay_main`).
@_cdecl("fuzz_replay_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer("replay", argc, argv)
}
