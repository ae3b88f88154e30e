import Foundation
public import Testing

/// A trait for suites whose tests start programs: at most twice as many of their tests run at
/// once as there are cores. Async tests that wait for a program free their thread, so
/// without it every such test in the process would start at once (a hundred key derivations
/// on two cores), and the programs' deadlines would pass while they wait for a core.
public struct ProgramSlot: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        await Self.slots.take()
        do {
            try await function()
        } catch {
            await Self.slots.give()
            throw error
        }
        await Self.slots.give()
    }

    private static let slots = Slots(count: 2 * ProcessInfo.processInfo.activeProcessorCount)

    /// A counting semaphore that suspends instead of blocking a thread.
    private actor Slots {
        private var free: Int
        private var waiting: [CheckedContinuation<Void, Never>] = []

        init(count: Int) { free = count }

        func take() async {
            if free > 0 {
                free -= 1
                return
            }
            await withCheckedContinuation { waiting.append($0) }
        }

        func give() {
            if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
        }
    }
}

extension Trait where Self == ProgramSlot {
    /// Each test takes one of a few slots while it runs; see ``ProgramSlot``.
    public static var programSlot: Self { ProgramSlot() }
}
