public import GiftKeeperCrypto
public import GiftKeeperDocuments
public import GiftKeeperDomain
public import GiftKeeperJournal

/// What the shell (GiftKeeperREPL's `REPLSession`) uses of a session: one seam, so that
/// the same shell, every command of it and the one-shots run over a person's journal
/// (``GiftKeeperService``, as it is) or over a household's as one member
/// (``HouseholdShellService``). Each member means what ``GiftKeeperService``'s says; an
/// implementation that has no such thing (a household has no `setup` in the shell) throws
/// ``ServiceError/Code/notInAHousehold(command:)``.
public protocol ShellService: AnyObject {
    var journalPath: String { get }
    var phase: GiftKeeperService.Phase { get }
    var state: GiftList { get }
    var now: Timestamp { get }
    var headSequence: UInt64 { get }
    var remoteURL: String? { get }
    var unsentFrames: UInt64 { get }
    var trimmedTail: TornTail? { get }
    var nextUndo: (events: [Event], stateBefore: GiftList)? { get }
    var nextRedo: (events: [Event], stateBefore: GiftList)? { get }
    var refusesRollback: Bool { get set }
    var acceptsRollbackOnChange: Bool { get set }
    var onNotification: ((LoginNotification) -> Void)? { get set }
    var onWaiting: ((Int) -> Void)? { get set }
    var onChangesElsewhere: (([HistoryEntry]) -> Void)? { get set }
    var onProgress: ((Int, Int) -> Void)? { get set }

    func open(access: JournalAccess) throws(ServiceError)
    func close() throws(ServiceError)
    func refresh() throws(ServiceError)
    func checkSetup(name: String) throws(ServiceError)
    func setup(name: String, password: SecureBytes, parameters: KDFParameters, currency: String?) throws(ServiceError)
    func login(password: SecureBytes) throws(ServiceError)
    func signOut() throws(ServiceError)
    func changePassword(old: SecureBytes, newPassword: () throws -> SecureBytes) throws
    @discardableResult func perform(_ change: Change) throws(ServiceError) -> ChangeResult
    func undo() throws(ServiceError) -> (undone: [Event], stateBefore: GiftList, compensation: [Event])
    func redo() throws(ServiceError) -> (redone: [Event], stateBefore: GiftList)
    func historyEntries(of present: PresentID?) throws(ServiceError) -> [HistoryEntry]
    func state(asOf time: Timestamp) throws(ServiceError) -> GiftList
    func export(to destination: inout some ExportWriting, asOf: GiftList?) throws(ServiceError)
    func importDocument(_ document: CheckedImportDocument) throws(ServiceError) -> ImportSummary
    @discardableResult func sync(restoringServer: Bool) throws(ServiceError) -> SyncReport
    func syncIfNeeded() throws(ServiceError) -> SyncReport?
}

extension GiftKeeperService: ShellService {
}
