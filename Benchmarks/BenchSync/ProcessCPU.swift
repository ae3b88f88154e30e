import Foundation

/// CPU time spent by processes of this machine, read from `/proc`, so `append-cost` can
/// split a request's cost between the bench client (this process), the service process and
/// the database (a PostgreSQL cluster: its postmaster, every live child, and the children
/// it has reaped, whose times it holds as its own `cutime`/`cstime`).
struct ProcessCPU {
    /// The service process, or nil.
    let service: Int32?
    /// The database cluster's postmaster, or nil.
    let postmaster: Int32?

    /// CPU seconds so far of this process, the service and the database (0 for one not named).
    struct Sample {
        var client: Double
        var service: Double
        var database: Double

        static func - (later: Sample, earlier: Sample) -> Sample {
            Sample(client: later.client - earlier.client, service: later.service - earlier.service, database: later.database - earlier.database)
        }
    }

    func sample() -> Sample {
        Sample(
            client: Self.seconds(of: getpid(), reaped: false),
            service: service.map { Self.seconds(of: $0, reaped: false) } ?? 0,
            database: postmaster.map { pid in
                Self.seconds(of: pid, reaped: true) + Self.children(of: pid).map { Self.seconds(of: $0, reaped: false) }.reduce(0, +)
            } ?? 0)
    }

    /// utime + stime of `pid` (with `reaped`, its waited-for children's too), in seconds.
    static func seconds(of pid: Int32, reaped: Bool) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        // After "pid (comm) ": state is field 3, so utime (14), stime (15), cutime (16),
        // cstime (17) are the 12th to 15th fields after the command's closing parenthesis.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 14 else { return 0 }
        let ticks = (11...(reaped ? 14 : 12)).compactMap { Double(fields[$0]) }.reduce(0, +)
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The live children of `pid`, from every thread's `children` list.
    static func children(of pid: Int32) -> [Int32] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.flatMap { task in
            ((try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? "")
                .split(separator: " ").compactMap { Int32($0) }
        }
    }
}
