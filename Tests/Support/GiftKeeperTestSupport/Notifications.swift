/// Whether a line of standard error is one of the shell's notifications (🔓 signed in,
/// 🔒 signed out, ⚠️ a warning, 🚨 an alarm), which scripts and one-shots print there beside
/// what went wrong.
public func isNotification(_ line: String) -> Bool {
    ["🔓", "🔒", "⚠️", "🚨"].contains { line.hasPrefix($0) }
}
