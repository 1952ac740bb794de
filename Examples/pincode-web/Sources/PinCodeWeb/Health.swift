import Foundation
import PinCodeScene

/// What `/health` answers: `{"sessions": 2, "connections": 1375, "rssBytes": 35123200}`.
public struct Health: Codable, Sendable, Equatable {
    /// The sessions whose WebSocket is open.
    public var sessions: Int
    /// The WebSockets opened since the server started.
    public var connections: Int
    /// The server's resident set, in bytes; nil where /proc/self/statm cannot be read.
    public var rssBytes: Int?

    /// The counts of `registry` and the process's resident set now.
    @MainActor
    public init(of registry: SessionRegistry) {
        self.init(sessions: registry.live, connections: registry.opened, rssBytes: Self.residentBytes())
    }

    /// Health with these figures.
    public init(sessions: Int, connections: Int, rssBytes: Int?) {
        (self.sessions, self.connections, self.rssBytes) = (sessions, connections, rssBytes)
    }

    /// The JSON, its keys in the order above.
    public var json: [UInt8] {
        let rss = rssBytes.map(String.init) ?? "null"
        return Array(#"{"sessions":\#(sessions),"connections":\#(connections),"rssBytes":\#(rss)}"#.utf8)
    }

    /// The process's resident set in bytes (Linux's /proc/self/statm: its second field, in pages).
    public static func residentBytes() -> Int? {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
            let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
