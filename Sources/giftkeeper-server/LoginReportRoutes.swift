import Foundation
import GiftKeeperCrypto
import GiftKeeperWire
import Hummingbird
import HummingbirdAuth
import NIOCore
import PostgresNIO

/// The routes of failed sign-in reports (``LoginReportSchema``; paths in ``Route``): a
/// member's device registers its report token and takes the mailbox when it signs in; a
/// wrong password posts a report with the token alone.
extension SyncRoutes {
    func addLoginReportRoutes(to router: Router<ServiceContext>, signedIn: RouterGroup<ServiceContext>) {
        router.post(RouterPath(Route.loginReports)) { request, context in try await postLoginReport(request, context) }
        signedIn.post("journals/:journal/login-reports") { request, context in try await takeLoginReports(request, context) }
    }

    /// One report, with a token and nothing else: kept, or refused (the wrong password it
    /// reports is answered on the device whatever happens here).
    private func postLoginReport(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let post = try await request.decode(as: LoginReportPost.self, context: context)
        guard post.token.count == LoginReportPost.tokenBytes, post.report.count == LoginReportPost.reportBytes else {
            throw HTTPError(.badRequest, message: "not a failed sign-in report")
        }
        let hash = ByteBuffer(bytes: Blake2b.hash(Array(post.token)))
        let report = ByteBuffer(bytes: post.report)
        let limit = Int32(quotas.loginReportsPerMember)
        let state = try await database.transaction(account: nil) { connection in
            try await connection.query("SELECT gk_post_login_report(\(hash), \(report), \(limit))", logger: database.logger)
                .decode(String.self).first { _ in true }
        }
        switch state {
        case "kept": return Response(status: .created)
        case "stale": throw HTTPError(.conflict, message: "the report token names a key the member no longer has")
        case "too soon": throw HTTPError(.tooManyRequests, message: "one report a second per token")
        case "full": throw HTTPError(.tooManyRequests, message: "over the quota of \(limit) reports waiting for a member")
        default: throw HTTPError(.notFound, message: "no such report token")
        }
    }

    /// This device's new report token (its hash), naming the member key reports are sealed
    /// to, and the member's mailbox taken: read and deleted in one transaction.
    private func takeLoginReports(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let identity = try context.requireIdentity()
        let id = try journalID(context)
        let registration = try await request.decode(as: LoginTokenRegistration.self, context: context)
        guard registration.tokenHash.count == 32, registration.sealingKey.count == 32 else {
            throw HTTPError(.badRequest, message: "not a report token's hash and a member key")
        }
        let (hash, key) = (ByteBuffer(bytes: registration.tokenHash), ByteBuffer(bytes: registration.sealingKey))
        let reports = try await database.transaction(account: identity.account) { connection in
            let household = try await connection.query(
                """
                SELECT household_account::text FROM gk_members
                WHERE household_account = gk_journal_home(\(id)) AND member_account = gk_current_account()
                """, logger: database.logger
            ).decode(String.self).first { _ in true }
            guard let household else { throw HTTPError(.notFound, message: "not a member of this household") }
            try await connection.query(
                """
                INSERT INTO gk_login_tokens (household_account, member_account, device_id, token_hash, sealing_key)
                VALUES (\(household)::uuid, gk_current_account(), \(identity.device), \(hash), \(key))
                ON CONFLICT (household_account, member_account, device_id)
                DO UPDATE SET token_hash = EXCLUDED.token_hash, sealing_key = EXCLUDED.sealing_key, last_post_at = NULL
                """, logger: database.logger)
            var reports: [Data] = []
            let rows = try await connection.query(
                """
                DELETE FROM gk_login_reports WHERE household_account = \(household)::uuid AND member_account = gk_current_account()
                RETURNING report
                """, logger: database.logger)
            for try await report in rows.decode(ByteBuffer.self) { reports.append(Data(report.readableBytesView)) }
            return reports
        }
        return try json(TakenLoginReports(reports: reports))
    }
}
