import FuzzDriver

/// libFuzzer's `main` for the `script` target (SwiftPM names an executable's entry `fuzz_script_main`).
@_cdecl("fuzz_script_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer("script", argc, argv)
}
