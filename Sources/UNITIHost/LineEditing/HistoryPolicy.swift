import Foundation

/// Which command lines the history file keeps: none that holds an e-mail address.
///
/// TinnitusNavigator's NFR1 says the device keeps no e-mail address, yet `login
/// maria@example.org` (the README says login takes an e-mail address) and a module command given
/// an address (`tyt feedback --email ...`) would otherwise be written verbatim to `history` in
/// the data directory. A line is left out whole rather than kept with the address cut out: a
/// recalled line that silently lacks a part would run something the person never typed.
/// Passwords never reach the history: they are read with the echo off, past the line editor
/// (``LineEditor/readSecret(prompt:)``), and answers to questions are not kept either
/// (``LineEditor/readLine(prompt:)``).
enum HistoryPolicy {
    /// Whether `line` may be kept: false when any word holds an address, i.e. an `@` with
    /// something other than space on both sides (`a@b`); a lone `@` or `@home` is kept.
    static func keeps(_ line: String) -> Bool {
        line.range(of: #"[^\s@]@[^\s@]"#, options: .regularExpression) == nil
    }
}
