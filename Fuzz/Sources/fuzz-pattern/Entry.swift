import FuzzDriver

/// libFuzzer's `main` for the `pattern` target (SwiftPM names an executable's entry `fuzz_pattern_main`).
@_cdecl("fuzz_pattern_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer("pattern", argc, argv)
}
