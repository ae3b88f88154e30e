import Glibc

/// libFuzzer's entry point: runs the check named by `GIFTKEEPER_FUZZ_TARGET` (see
/// `FuzzTarget`) on each input and traps on a broken invariant, which libFuzzer reports
/// and saves. Built by `scripts/fuzz.sh`, not by SwiftPM (an executable target does not
/// link with `-sanitize=fuzzer`).
private let target: FuzzTarget = {
    guard let name = getenv("GIFTKEEPER_FUZZ_TARGET").map({ String(cString: $0) }), let target = FuzzTarget(rawValue: name)
    else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
        fputs("giftkeeper-fuzz: set GIFTKEEPER_FUZZ_TARGET to one of: \(names)\n", stderr)
        exit(2)
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    do {
        try target.check(input)
    } catch {
        fatalError("\(target.rawValue): \(error)")
    }
    return 0
}
