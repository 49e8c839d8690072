import FuzzDriver

/// libFuzzer's `main` for the `lottie` target (SwiftPM names an executable's entry `fuzz_lottie_main`).
@_cdecl("fuzz_lottie_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer("lottie", argc, argv)
}
