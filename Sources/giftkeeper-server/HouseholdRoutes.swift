import Foundation
import GiftKeeperCrypto
import GiftKeeperWire
import Hummingbird
import HummingbirdAuth
import NIOCore
import PostgresNIO

/// The routes of households (SPEC §13; paths in ``Route``): making one, inviting, joining,
/// the roster and changes of members. A household journal's frames are read and appended
/// by the journal routes, which row-level security lets every member and no one else use
/// (``HouseholdSchema``). A non-member is answered 404, as for a journal that is not there.
extension SyncRoutes {
    func addHouseholdRoutes(to signedIn: RouterGroup<ServiceContext>) {
        signedIn.post("households") { request, context in try await createHousehold(request, context) }
        signedIn.get("journals/:journal/members") { _, context in try await roster(context) }
        signedIn.post("journals/:journal/members") { request, context in try await changeMembers(request, context) }
        signedIn.post("journals/:journal/invitations") { request, context in try await invite(request, context) }
        signedIn.get("journals/:journal/invitations") { _, context in try await invitations(context) }
        signedIn.delete("journals/:journal/invitations/:invitation") { _, context in try await burn(context) }
        signedIn.get("invitations/:invitation") { _, context in try await invitation(context) }
        signedIn.post("invitations/:invitation/request") { request, context in try await requestJoin(request, context) }
    }

    private func createHousehold(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let new = try await request.decode(as: NewHousehold.self, context: context)
        let journal = new.journal
        guard journal.journalID.count == 16, journal.genesisHash.count == 32, journal.header.count <= 4_096, new.ownerKeys.count == 64
        else { throw HTTPError(.badRequest, message: "not a household journal's header and an owner's keys") }
        let limit = Int64(quotas.journalsPerAccount)
        do {
            try await database.transaction(account: identity.account) { connection in
                // Under the account's lock, as a journal is made: the households it is in count.
                try await connection.query(
                    "SELECT pg_advisory_xact_lock(hashtext(gk_current_account()::text))", logger: database.logger)
                let id = ByteBuffer(bytes: journal.journalID)
                let counts = try await connection.query(
                    "SELECT count(*), count(*) FILTER (WHERE id = \(id)) FROM gk_journals", logger: database.logger
                ).decode((Int64, Int64).self).first { _ in true }
                let (count, exists) = counts ?? (0, 0)
                guard exists == 0 else { throw HTTPError(.conflict, message: "the account holds this journal already") }
                guard count < limit else { throw HTTPError(.tooManyRequests, message: "over the quota of \(limit) journals an account") }
                // Its rows read, or an error raised while it ran would surface only at the commit.
                _ = try await connection.query(
                    """
                    SELECT 1 FROM gk_create_household(\(id), \(ByteBuffer(bytes: journal.header)), \(ByteBuffer(bytes: journal.genesisHash)),
                        \(ByteBuffer(bytes: new.ownerKeys)))
                    """, logger: database.logger
                ).decode(Int32.self).first { _ in true }
            }
        } catch let error as PSQLError where error.sqlState == "23505" {
            throw HTTPError(.conflict, message: "a journal of this id exists")
        }
        return Response(status: .created)
    }

    /// The household of journal `id` and the role in it of the transaction's account; 404
    /// for a non-member (or a person's journal).
    private func membership(_ id: ByteBuffer, _ connection: PostgresConnection) async throws -> (household: String, role: String) {
        let row = try await connection.query(
            """
            SELECT household_account::text, role FROM gk_members
            WHERE household_account = gk_journal_home(\(id)) AND member_account = gk_current_account()
            """, logger: database.logger
        ).decode((String, String).self).first { _ in true }
        guard let row else { throw HTTPError(.notFound, message: "not a member of this household") }
        return row
    }

    /// ``membership(_:_:)`` of an owner; 403 for a member.
    private func ownersHousehold(_ id: ByteBuffer, _ connection: PostgresConnection) async throws -> String {
        let (household, role) = try await membership(id, connection)
        guard role == HouseholdRoster.Role.owner.rawValue else { throw HTTPError(.forbidden, message: "not an owner of this household") }
        return household
    }

    private func roster(_ context: ServiceContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let id = try journalID(context)
        let members = try await database.transaction(account: identity.account) { connection in
            let (household, _) = try await membership(id, connection)
            var members: [HouseholdRoster.Member] = []
            let rows = try await connection.query(
                "SELECT r_account, r_role, r_keys, r_joined FROM gk_roster(\(household)::uuid)", logger: database.logger)
            for try await (account, role, keys, joined) in rows.decode((String, String, ByteBuffer?, Int64).self) {
                members.append(
                    HouseholdRoster.Member(
                        account: account, role: HouseholdRoster.Role(rawValue: role) ?? .member, memberKeys: keys.map { Data($0.readableBytesView) },
                        joinedAt: joined))
            }
            return members
        }
        return try json(HouseholdRoster(members: members, you: identity.account))
    }

    /// A change of members and its frames in one transaction: the frames first (their
    /// append locks the journal's row), then the change only if they landed; a refused
    /// change takes the frames back with it.
    private func changeMembers(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let id = try journalID(context)
        let change = try await request.decode(as: MembershipChange.self, context: context)
        let target = change.account.flatMap { UUID(uuidString: $0) }
        switch change.kind {
        case .admit:
            guard change.invitation?.count == 16, change.memberKeys?.count == 64 else {
                throw HTTPError(.badRequest, message: "an admission names its invitation and the member's keys")
            }
        case .remove, .promote:
            guard target != nil else { throw HTTPError(.badRequest, message: "the change names a member's account") }
        case .renew:
            guard change.memberKeys?.count == 64 else { throw HTTPError(.badRequest, message: "a renewal names the member's new keys") }
        case .leave:
            break
        }
        try check(change.append)
        let answer = try await overQuota {
            try await Self.refusals {
                try await database.transaction(account: identity.account) { connection in
                    let (household, role) = try await membership(id, connection)
                    guard change.kind == .leave || change.kind == .renew || role == HouseholdRoster.Role.owner.rawValue else {
                        throw HTTPError(.forbidden, message: "not an owner of this household")
                    }
                    let rows = try await connection.query(appendStatement(change.append, to: id, as: identity), logger: database.logger)
                    guard let answer = try await Self.appendAnswer(rows) else {
                        throw HTTPError(.notFound, message: "not a member of this household")
                    }
                    guard answer.appended else { return answer }
                    // Read: a refusal raised while it runs comes with its rows.
                    _ = try await connection.query(
                        """
                        SELECT gk_change_membership(\(household)::uuid, \(change.kind.rawValue), \(target?.uuidString)::uuid,
                            \(change.invitation.map { ByteBuffer(bytes: $0) })::bytea, \(change.memberKeys.map { ByteBuffer(bytes: $0) })::bytea)::text
                        """, logger: database.logger
                    ).decode(String?.self).first { _ in true }
                    return answer
                }
            }
        }
        return try json(answer)
    }

    /// `body`, with the refusals of `gk_change_membership` as HTTP errors.
    private static func refusals<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as PSQLError {
            switch error.sqlState {
            case "GKNOM": throw HTTPError(.notFound, message: "not a member of this household")
            case "GKNOO": throw HTTPError(.forbidden, message: "not an owner of this household")
            case "GKLST": throw HTTPError(.conflict, message: "the last owner of a household cannot be removed or leave")
            case "GKNOT": throw HTTPError(.unprocessableContent, message: "no such member or join request in this household")
            default: throw error
            }
        }
    }

    // MARK: Invitations

    private func invitationID(_ context: ServiceContext) throws -> ByteBuffer {
        guard let id = Wire.unhex(try context.parameters.require("invitation")), id.count == 16 else {
            throw HTTPError(.badRequest, message: "an invitation id is 32 hex digits")
        }
        return ByteBuffer(bytes: id)
    }

    private func invite(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let id = try journalID(context)
        let new = try await request.decode(as: NewInvitation.self, context: context)
        guard new.id.count == 16, new.publicKey.count == 32, new.ownerKeys.count == 64,
            (1...NewInvitation.longestLifetimeSeconds).contains(new.expiresInSeconds)
        else { throw HTTPError(.badRequest, message: "not an invitation") }
        do {
            try await database.transaction(account: identity.account) { connection in
                let household = try await ownersHousehold(id, connection)
                try await connection.query(
                    """
                    INSERT INTO gk_invitations (id, household_account, public_key, owner_keys, invited_by, expires_at)
                    VALUES (\(ByteBuffer(bytes: new.id)), \(household)::uuid, \(ByteBuffer(bytes: new.publicKey)),
                        \(ByteBuffer(bytes: new.ownerKeys)), gk_current_account(), now() + make_interval(secs => \(new.expiresInSeconds)))
                    """, logger: database.logger)
            }
        } catch let error as PSQLError where error.sqlState == "23505" {
            throw HTTPError(.conflict, message: "an invitation of this id exists")
        }
        return Response(status: .created)
    }

    private func invitations(_ context: ServiceContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let id = try journalID(context)
        let list = try await database.transaction(account: identity.account) { connection in
            let household = try await ownersHousehold(id, connection)
            var list: [InvitationList.Invitation] = []
            let rows = try await connection.query(
                """
                SELECT id, extract(epoch FROM expires_at)::bigint, request, signature, extract(epoch FROM requested_at)::bigint,
                    refused_uses, extract(epoch FROM last_refused_at)::bigint, extract(epoch FROM admitted_at)::bigint
                FROM gk_invitations WHERE household_account = \(household)::uuid ORDER BY created_at, id
                """, logger: database.logger)
            for try await row in rows.decode((ByteBuffer, Int64, ByteBuffer?, ByteBuffer?, Int64?, Int32, Int64?, Int64?).self) {
                let request = row.2.map { sealed in
                    JoinRequestBody(sealedKeys: Data(sealed.readableBytesView), signature: Data(row.3?.readableBytesView ?? []))
                }
                list.append(
                    InvitationList.Invitation(
                        id: Data(row.0.readableBytesView), expiresAt: row.1, request: request, requestedAt: row.4,
                        refusedUses: Int(row.5), lastRefusedAt: row.6, admittedAt: row.7))
            }
            return list
        }
        return try json(InvitationList(invitations: list))
    }

    private func burn(_ context: ServiceContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let id = try journalID(context)
        let invitation = try invitationID(context)
        let burnt = try await database.transaction(account: identity.account) { connection in
            let household = try await ownersHousehold(id, connection)
            return try await connection.query(
                """
                DELETE FROM gk_invitations WHERE id = \(invitation) AND household_account = \(household)::uuid AND admitted_at IS NULL
                RETURNING id
                """, logger: database.logger
            ).decode(ByteBuffer.self).first { _ in true }
        }
        guard burnt != nil else { throw HTTPError(.unprocessableContent, message: "no such invitation waiting") }
        return Response(status: .noContent)
    }

    /// The invitation `id` as the joiner may see it: nil when there is none; 409 when
    /// another account used it, 410 when it expired.
    private func openInvitation(_ id: ByteBuffer, account: String) async throws -> InvitationInfo? {
        let row = try await database.transaction(account: account) { connection in
            try await connection.query(
                "SELECT r_journal, r_owner_keys, r_public_key, r_seconds, r_state FROM gk_invitation(\(id), true)", logger: database.logger
            ).decode((ByteBuffer, ByteBuffer, ByteBuffer, Int64, String).self).first { _ in true }
        }
        guard let row else { return nil }
        try Self.refuse(state: row.4)
        return InvitationInfo(
            journalID: Data(row.0.readableBytesView), ownerKeys: Data(row.1.readableBytesView), publicKey: Data(row.2.readableBytesView),
            expiresInSeconds: Int(row.3))
    }

    /// Throws for an invitation that is `used` (409) or `expired` (410).
    private static func refuse(state: String) throws {
        switch state {
        case "used": throw HTTPError(.conflict, message: "this invitation was used already")
        case "expired": throw HTTPError(.gone, message: "this invitation expired")
        default: break
        }
    }

    private func invitation(_ context: ServiceContext) async throws -> Response {
        let identity = try context.requireIdentity()
        guard let info = try await openInvitation(try invitationID(context), account: identity.account) else {
            throw HTTPError(.notFound, message: "no such invitation")
        }
        return try json(info)
    }

    /// A join request: its signature checked with the invitation's key, then filed once; a
    /// second use is refused and counted for the owners (its transaction commits the count).
    private func requestJoin(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let id = try invitationID(context)
        let body = try await request.decode(as: JoinRequestBody.self, context: context)
        guard body.sealedKeys.count <= 4_096, body.signature.count == 64 else { throw HTTPError(.badRequest, message: "not a join request") }
        let key = try await database.transaction(account: identity.account) { connection in
            try await connection.query("SELECT r_public_key FROM gk_invitation(\(id), false)", logger: database.logger)
                .decode(ByteBuffer.self).first { _ in true }
        }
        guard let key else { throw HTTPError(.notFound, message: "no such invitation") }
        let signed = JoinRequestBody.signedBytes(invitationID: Array(id.readableBytesView), sealedKeys: Array(body.sealedKeys))
        guard SigningKeyPair.verify(signature: Array(body.signature), of: signed, publicKey: Array(key.readableBytesView)) else {
            throw HTTPError(.badRequest, message: "the request is not signed with the invitation's key")
        }
        let state = try await database.transaction(account: identity.account) { connection in
            try await connection.query(
                "SELECT gk_request_join(\(id), \(ByteBuffer(bytes: body.sealedKeys)), \(ByteBuffer(bytes: body.signature)))",
                logger: database.logger
            ).decode(String.self).first { _ in true }
        }
        try Self.refuse(state: state ?? "unknown")
        guard state == "requested" else { throw HTTPError(.notFound, message: "no such invitation") }
        return Response(status: .created)
    }
}
