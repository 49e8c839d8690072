import FuzzDriver

/// libFuzzer's `main` for the `ogg` target (SwiftPM names an executable's entry `fuzz_ogg_main`).
@_cdecl("fuzz_ogg_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer("ogg", argc, argv)
}
