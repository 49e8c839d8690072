import FuzzDriver

/// libFuzzer's `main` for the `arguments` target (SwiftPM names an executable's entry `fuzz_arguments_main`).
@_cdecl("fuzz_arguments_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer("arguments", argc, argv)
}
