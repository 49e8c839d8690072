import FuzzDriver

/// libFuzzer's `main` for the `capi` target (SwiftPM names an executable's entry `fuzz_capi_main`).
@_cdecl("fuzz_capi_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer("capi", argc, argv)
}
