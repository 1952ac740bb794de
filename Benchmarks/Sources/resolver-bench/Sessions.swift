// The sessions scenario: the web front end's pages as its server holds them (one Session each:
// the PIN control, Submit, the visitable button, the notes and their bindings), what one costs in
// memory and in time, so that a server's capacity is a measured number.

import Foundation
import PinCodeScene

extension Scenarios {
    // MARK: Sessions

    /// The frames a page sends for one visit: a PIN code typed and submitted, the link followed,
    /// a note written (the inspector left off, as a page starts).
    static let sessionFrames = [
        #"{"type":"pointer","control":"pin","phase":"down","x":20,"y":20}"#,
        #"{"type":"pointer","control":"pin","phase":"up","x":20,"y":20}"#,
        #"{"type":"insertText","text":"2"}"#, #"{"type":"insertText","text":"4"}"#,
        #"{"type":"insertText","text":"6"}"#, #"{"type":"insertText","text":"8"}"#,
        #"{"type":"pointer","control":"submit","phase":"down","x":20,"y":20}"#,
        #"{"type":"pointer","control":"submit","phase":"up","x":20,"y":20}"#,
        #"{"type":"pointer","control":"visit","phase":"down","x":20,"y":20}"#,
        #"{"type":"pointer","control":"visit","phase":"up","x":20,"y":20}"#,
        #"{"type":"pointer","control":"notes","phase":"down","x":20,"y":20}"#,
        #"{"type":"pointer","control":"notes","phase":"up","x":20,"y":20}"#,
        #"{"type":"insertText","text":"ok"}"#,
    ]

    /// Opens a session and plays one visit, encoding every answer as the server sends it.
    /// Returns the session and the bytes of the frames it answered with.
    private func visit() -> (Session, Int) {
        let session = Session()
        var bytes = session.start().json.utf8.count
        for frame in Self.sessionFrames {
            for message in session.handle(frame) {
                if case .error(let error) = message { fatalError("resolver-bench: the session refused \(frame): \(error)") }
                bytes += message.json.utf8.count
            }
        }
        return (session, bytes)
    }

    /// Memory per session (N sessions opened and played, held), and the time to open, play and
    /// close one.
    func sessions() {
        let count = quick ? 200 : 2_000
        let params: [String: Param] = ["sessions": .int(count), "frames_per_session": .int(Self.sessionFrames.count)]
        _ = visit()  // first use: type metadata, the access self-check, lazily built tables
        let before = MemoryUsage.now()
        var held: [Session] = []
        held.reserveCapacity(count)
        var sent = 0
        let start = now()
        for _ in 0..<count {
            let (session, bytes) = visit()
            held.append(session)
            sent += bytes
        }
        let nanoseconds = Double(now() - start) / Double(count)
        let bytes = MemoryUsage.now().perItem(since: before, items: count)
        held.removeAll()
        report.record(
            Result(
                scenario: "sessions", implementation: "web front end sessions, held", params: params,
                nsPerOpMedian: nanoseconds, nsPerOpP99: nanoseconds, opsPerSec: 1e9 / nanoseconds, bytesPerSession: bytes.resident,
                note: String(
                    format:
                        "one pass; ns/op: open and play one; bytes/session = resident set growth (malloc heap growth %.0f B); %d B of frames sent per session",
                    bytes.heap, sent / count)))
        report.run(
            "sessions", "web front end session (open, play, close)", params, note: "ns/op: one session opened, its visit played, freed"
        ) {
            iterations in
            for _ in 0..<iterations { consume(UInt64(visit().1)) }
        }
    }
}
