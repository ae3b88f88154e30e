import Foundation
import GiftKeeperTestSupport
import Testing

@testable import GiftKeeperCrypto

/// libsodium's initialisation stays ahead of every call into it.
///
/// `sodium_init` detects the CPU and picks the fast BLAKE2b, ChaCha20 and Argon2; a hash
/// computed before it uses the slow reference BLAKE2b (export was 11 % slower for it, issue
/// 12). Two guards: the source keeps every libsodium call behind `LibSodium`, whose one
/// value is made only after `sodium_init` (a new call path that skips it fails here), and
/// fresh processes check that each entry point of the module leaves libsodium initialised.
@Suite("libsodium is initialised before any call into it")
struct SodiumInitializationTests {
    /// The package's root.
    static let root = URL(fileURLWithPath: repositoryRoot)
    static let gate = "Sources/GiftKeeperCrypto/Sodium.swift"

    /// A call of a libsodium function (or of the shim's `gk_` ones): a lower-case name
    /// followed by a parenthesis. The constants (`crypto_box_PUBLICKEYBYTES`) call nothing.
    static var libsodiumCall: Regex<(Substring, Substring)> { #/\b(crypto|sodium|randombytes|gk)_[a-z0-9_]*\s*\(/# }

    /// Every Swift file of the package and of the benchmarks, with its path from the root.
    static func swiftFiles() throws -> [(path: String, text: String)] {
        var files: [(String, String)] = []
        for folder in ["Sources", "Tests", "Fuzz", "Benchmarks"] {
            let base = root.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { continue }
            for case let url as URL in walker where url.pathExtension == "swift" && !url.path.contains("/.build") {
                let path = String(url.path.dropFirst(root.path.count + 1))
                files.append((path, try String(contentsOf: url, encoding: .utf8)))
            }
        }
        return files
    }

    /// The lines of `text` without comments, numbered from 1.
    static func codeLines(_ text: String) -> [(number: Int, code: String)] {
        text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().map { index, line in
            let code = line.range(of: "//").map { line[..<$0.lowerBound] } ?? line[...]
            return (index + 1, String(code))
        }
    }

    @Test("only Sodium.swift imports CSodium")
    func oneFileImportsLibsodium() throws {
        let files = try Self.swiftFiles()
        #expect(files.contains { $0.path == Self.gate })
        let importers = files.filter { file in
            Self.codeLines(file.text).contains { $0.code.contains(#/\bimport\s+(\w+\s+)?CSodium\b/#) }
        }.map(\.path)
        #expect(importers == [Self.gate], "libsodium is reached only through LibSodium in \(Self.gate)")
    }

    @Test("every libsodium call in Sodium.swift is a method of LibSodium, made after sodium_init")
    func everyCallGoesThroughTheGate() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent(Self.gate), encoding: .utf8)
        let lines = Self.codeLines(text)
        /// The lines of the declaration that starts with `opening`, to its closing brace in column 0.
        func region(_ opening: String) -> ClosedRange<Int>? {
            guard let start = lines.first(where: { $0.code.hasPrefix(opening) })?.number,
                let end = lines.first(where: { $0.number > start && $0.code.hasPrefix("}") })?.number
            else { return nil }
            return start...end
        }
        let library = try #require(region("struct LibSodium"))
        let probe = try #require(region("enum SodiumProbe"))
        for line in lines {
            for match in line.code.matches(of: Self.libsodiumCall) {
                let call = String(match.output.0)
                if library.contains(line.number) { continue }
                let allowed = probe.contains(line.number) && call.hasPrefix("sodium_runtime_has_")
                #expect(allowed, "line \(line.number) calls \(call) outside LibSodium")
            }
        }
        let initCalls = lines.filter { $0.code.contains("sodium_init(") }
        #expect(initCalls.count == 1)
        #expect(initCalls.first?.code.contains("private static let initialized: LibSodium? = sodium_init() >= 0 ? LibSodium() : nil") == true)
        #expect(lines.filter { $0.code.contains("LibSodium()") }.count == 1, "the one value is made in `initialized` only")
        #expect(lines.contains { $0.code.trimmingCharacters(in: .whitespaces) == "private init() {}" })
        let extensions = try Self.swiftFiles().filter { file in
            Self.codeLines(file.text).contains { $0.code.contains(#/^\s*(\w+\s+)*extension\s+LibSodium\b/#) }
        }.map(\.path)
        #expect(extensions.isEmpty, "LibSodium is not extended elsewhere")
    }

    @Test("a fresh process has not detected the CPU before the first call (the probe means something)")
    func probeIsFalseBeforeInitialisation() async {
        #if arch(x86_64) || arch(arm64)
            await #expect(processExitsWith: .success) {
                precondition(!SodiumProbe.cpuFeaturesDetected, "libsodium was initialised before any call")
            }
        #endif
    }

    /// An entry point of the module that a process can call first, before anything else.
    enum EntryPoint: String, CaseIterable, Codable, Sendable {
        case hashArray, hashKeyed, hashInto, randomBytes, constantTimeEqual, secureBytes, secureRandom
        case aeadKey, boxKeyPair, sealedBoxSeal, salt, libraryVersion, pad, unpad, signingKeyPair, verifySignature

        func call() {
            let message: [UInt8] = Array("first call".utf8)
            switch self {
            case .hashArray: _ = Blake2b.hash(message)
            case .hashKeyed: _ = Blake2b.hash(message, key: Array(repeating: 7, count: 32))
            case .hashInto:
                var digest = [UInt8](repeating: 0, count: Blake2b.digestLength)
                message.withUnsafeBytes { input in
                    digest.withUnsafeMutableBytes { output in Blake2b.hash(input, key: nil, into: output) }
                }
            case .randomBytes: _ = try? GiftKeeperCrypto.randomBytes(count: 8)
            case .constantTimeEqual: _ = GiftKeeperCrypto.constantTimeEqual(message, message)
            case .secureBytes: _ = try? SecureBytes(capacity: 32)
            case .secureRandom: _ = try? SecureBytes.random(count: 32)
            case .aeadKey: _ = try? AEAD.generateKey()
            case .boxKeyPair: _ = try? BoxKeyPair.generate()
            case .sealedBoxSeal: _ = try? SealedBox.seal(message, to: Array(1...32))
            case .salt: _ = try? PasswordKDF.generateSalt()
            case .libraryVersion: _ = Sodium.libraryVersion
            case .pad: _ = try? Padding.padded(message, blockSize: 64)
            case .unpad: _ = Padding.unpaddedLength([0x80] + [UInt8](repeating: 0, count: 63), blockSize: 64)
            case .signingKeyPair: _ = try? SigningKeyPair.generate()
            case .verifySignature:
                _ = SigningKeyPair.verify(signature: Array(repeating: 1, count: 64), of: message, publicKey: Array(1...32))
            }
        }
    }

    @Test("each entry point, called first in a fresh process, runs after sodium_init", arguments: EntryPoint.allCases)
    func entryPointInitialisesFirst(_ entry: EntryPoint) async {
        await #expect(processExitsWith: .success) { [entry] in
            entry.call()
            precondition(SodiumProbe.cpuFeaturesDetected, "\(entry) called libsodium before sodium_init")
        }
    }
}
