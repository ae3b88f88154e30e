// memcheck JOURNAL replay|export: the decrypted state size (resident growth over open +
// login) against the peak RSS of a replay or an export, for docs/performance.md. The
// journal is a benchmark fixture (password "correct horse battery staple"), e.g. the one
// `GIFTKEEPER_BENCH_FIXTURES=/tmp/f swift package --disable-sandbox benchmark --filter "Replay 1M.*"`
// leaves at /tmp/f/presents-1000000.journal.
import Glibc
import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperService

/// Current resident set size (bytes) from /proc/self/statm.
func heapInUse() -> Int {
    guard let file = fopen("/proc/self/statm", "r") else { return 0 }
    defer { fclose(file) }
    var size = 0, resident = 0
    withUnsafeMutablePointer(to: &size) { s in withUnsafeMutablePointer(to: &resident) { r in
        _ = withVaList([s, r]) { vfscanf(file, "%ld %ld", $0) } } }
    return resident * Int(sysconf(Int32(_SC_PAGESIZE)))
}
func peakRSS() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_maxrss * 1024
}
let arguments = CommandLine.arguments
let path = arguments[1], mode = arguments[2]
let pw = Array("correct horse battery staple".utf8)
let secret = try SecureBytes(capacity: pw.count, count: 0)
for b in pw { _ = secret.append(b) }
let env = ServiceEnvironment(now: { Timestamp(millisecondsSinceEpoch: 1_795_000_000_000) }, sleep: { _ in },
                             stateDirectory: nil, allowsTestKeyDerivationCost: true)
let before = heapInUse(), rssBefore = peakRSS()
let service = GiftKeeperService(journalPath: path, environment: env)
try service.open()
try service.login(password: secret)
let state = heapInUse() - before
let afterLogin = peakRSS()
struct CountingExport: ExportWriting {
    var size = 0
    mutating func write(_ chunk: ArraySlice<UInt8>) throws(ServiceError) { size += chunk.count }
    mutating func finish() throws(ServiceError) {}
}
var sink = CountingExport()
if mode == "export" {
    try service.export(to: &sink)
}
let exported = sink.size
let peak = peakRSS()
print("presents \(service.state.presents.count) events \(service.state.eventCount)")
print("state (resident growth over open + login) bytes \(state) (\(state / max(service.state.presents.count, 1)) per present)")
print("process RSS before open \(rssBefore), peak after login \(afterLogin), peak after \(mode) \(peak), export bytes \(exported)")
print(String(format: "peak RSS / state = %.2f; (peak RSS - RSS before open) / state = %.2f",
             Double(peak) / Double(state), Double(peak - rssBefore) / Double(state)))
