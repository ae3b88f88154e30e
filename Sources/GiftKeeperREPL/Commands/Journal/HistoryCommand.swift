import ArgumentParser
import GiftKeeperDocuments
import GiftKeeperDomain
import GiftKeeperService
import OrderedCollections

/// `history [<id>] [--last N] [--recipient NAME] [--since DATE] [--until DATE] [--logins]`:
/// the trail in words, local times; with an id, one present's life. Sign-ins and sign-outs
/// only with `--logins`.
struct HistoryCommand: ShellCommand, StructuredOutputOptions {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "What happened, in words, with local times; with an id, one present's life.",
        usage: "history [<id>] [--last N] [--recipient NAME] [--since DATE] [--until DATE] [--logins] [--json]",
        discussion: """
            Sign-ins and sign-outs are left out unless --logins is given (failed sign-ins and \
            sessions that ended without signing out are always shown). \
            'giftkeeper audit' shows the same journal frame by frame, for machines.
            """)

    @Argument(help: "A present id such as p3: only its history.") var id: String?
    // Unconditional: '--last -1' reaches the "1 or more" check instead of "missing value".
    @Option(parsing: .unconditional, help: ArgumentHelp("Only the last N entries.", valueName: "N")) var last: Int?
    @Option(help: ArgumentHelp("Only what concerns this person's presents and budgets.", valueName: "NAME"))
    var recipient: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("Only from this day (YYYY-MM-DD) or time (YYYY-MM-DDTHH:MM) on.", valueName: "DATE"))
    var since: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("Only up to the end of this day or minute.", valueName: "DATE")) var until: String?
    @Flag(help: "Show sign-ins and sign-outs too.") var logins = false
    @Flag(help: "One JSON document (an array of entries) instead of the table.") var json = false

    static func completions(for request: CompletionRequest, in shell: any Shell) -> [String] {
        switch request.precedingWords.last {
        case "--recipient": return shell.recipients
        case "--last", "--since", "--until": return []
        default:
            return request.wordIndex == 1 ? shell.presentIDs + shell.service.state.removedPresents.keys.map(\.description) : []
        }
    }

    mutating func run(in shell: any Shell) throws {
        try shell.requireSignedIn()
        if let last, last < 1 {
            throw REPLError(.invalidCount(last))
        }
        let id = try self.id.map { try PresentID.parse($0.trimmedWhitespace()) }
        if let id, shell.service.state.present(id) == nil { throw DomainError.unknownPresent(id) }
        let filter = HistoryFilter(
            logins: logins, recipient: recipient.map(TextFolding.key),
            since: try since.map { text throws(REPLError) in
                try LocalTime.parse(text, option: "--since", end: false, now: shell.service.now)
            },
            until: try until.map { text throws(REPLError) in
                try LocalTime.parse(text, option: "--until", end: true, now: shell.service.now)
            })
        var entries = try shell.service.historyEntries(of: id).filter(filter.keeps)
        shell.progress.clear()  // the replay's progress line, if it was long enough to show one
        if let last, entries.count > last {
            entries = Array(entries.suffix(last))
        }
        if try StructuredOutput.format(self) == .json {
            shell.console.write(
                JSONWriter.document(
                    .array(
                        entries.map { entry in
                            .object(
                                [
                                    ("seq", .number(Int64(entry.sequence))),
                                    ("time", .text(entry.event?.at.iso8601)),
                                    ("event", .string(entry.event?.typeName ?? "keyWrap")),
                                    ("present", .text(entry.event?.body.presentID?.description)),
                                    ("what", .string(HistoryWords.sentence(entry))),
                                    ("reported", .bool(entry.isReported)),
                                ] + (entry.author.map { [("author", .string($0))] } ?? []))
                        })))
            return
        }
        // In a household, who did it (the member who signed it).
        let byWhom = entries.contains { $0.author != nil }
        let table = TableRenderer(
            columns: [.init("WHEN")] + (byWhom ? [.init("WHO")] : []) + [.init("WHAT", shrinks: true)],
            maxWidth: TerminalSession.outputColumns)
        shell.console.print(
            table.render(
                entries.map { entry in
                    [entry.event.map { LocalTime.dateAndMinute($0.at) } ?? "-"] + (byWhom ? [entry.author ?? "-"] : [])
                        + [HistoryWords.sentence(entry)]
                }))
    }
}

/// Which history entries `history` shows: sign-ins and sign-outs only when asked for; a
/// person's entries; a span of time.
struct HistoryFilter {
    var logins = false
    /// The folded name of the person asked for.
    var recipient: String?
    var since: Timestamp?
    var until: Timestamp?

    func keeps(_ entry: HistoryEntry) -> Bool {
        guard let event = entry.event else {
            // A key wrap has no time and no person: shown only when neither is asked for.
            return recipient == nil && since == nil && until == nil
        }
        if let since, event.at < since { return false }
        if let until, event.at > until { return false }
        if !logins {
            switch event.body {
            case .loginSucceeded, .signedOut(clean: true): return false
            default: break
            }
        }
        guard let recipient else { return true }
        return Self.recipients(of: entry).contains { TextFolding.matches($0, key: recipient) }
    }

    /// The people an entry is about: a present's recipient (before and after an edit), a
    /// budget's.
    private static func recipients(of entry: HistoryEntry) -> [String] {
        guard let event = entry.event else { return [] }
        let before = entry.presentBefore.map { [$0.recipient] } ?? []
        switch event.body {
        case .presentAdded(_, let recipient, _, _, _, _, _, _): return [recipient]
        case .presentImported(let present): return [present.recipient]
        case .presentEdited(_, let changes):
            return before
                + changes.compactMap { change in
                    if case .recipient(let name) = change { name } else { nil }
                }
        case .presentStatusChanged, .presentRemoved, .presentRestored: return before
        case .budgetSet(let budget): return budget.scope.recipient.map { [$0] } ?? []
        case .budgetCleared(let scope): return scope.recipient.map { [$0] } ?? []
        case .profileFieldSet(let recipient, _, _): return [recipient]
        case .wishAdded(let wish): return [wish.wisher]
        case .giversSet(_, let givers): return before + givers
        case .wishRemoved, .wishClaimed, .wishUnclaimed: return before
        case .accountCreated, .loginSucceeded, .loginFailed, .signedOut, .passwordChanged, .stateExported, .occasionAdded,
            .occasionRemoved, .currencySet, .occasionClosed:
            return []
        }
    }
}
