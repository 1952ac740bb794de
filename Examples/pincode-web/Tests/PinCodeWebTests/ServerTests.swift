import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSTesting
import HummingbirdWebSocket
import PinCodeScene
import PinCodeWeb
import StatefulControls
import Testing

/// Weak references to what one session allocated.
@MainActor
final class Allocations {
    private struct Weak { weak var object: AnyObject? }
    private var references: [Weak] = []

    /// Watches the session and every control and bound target it owns.
    func watch(_ session: Session) {
        let scene = session.scene
        let objects: [AnyObject] =
            [session, scene, session.inspector, scene.pin, scene.submit, scene.visit, scene.notes, scene.status]
            + scene.pin.dots
        references += objects.map { Weak(object: $0) }
    }

    var watched: Int { references.count }
    var alive: Int { references.filter { $0.object != nil }.count }
}

/// The process's resident set, in bytes.
func residentBytes() -> Int {
    let statm = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
    let pages = statm.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// Polls `condition` for up to five seconds (the server ends a session just after the client
/// sees the close).
@MainActor
func eventually(_ condition: @MainActor () -> Bool) async throws -> Bool {
    for _ in 0..<500 {
        if condition() { return true }
        try await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

@MainActor
@Suite("The server over real WebSockets", .serialized)
struct ServerTests {
    let registry: SessionRegistry

    init() { registry = SessionRegistry() }

    private func withServer(_ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        try await WebServer.application(port: 0, registry: registry).test(.live) { try await body($0) }
    }

    /// Opens a connection, reads the snapshot, sends `messages` and returns what came back
    /// until the server closed or `replies` messages arrived, and the close frame.
    private func exchange(_ client: any TestClientProtocol, send messages: [WebSocketMessage], replies: Int)
        async throws -> (replies: [String], close: WebSocketCloseFrame?)
    {
        let received = Received()
        let close = try await client.ws("/ws") { inbound, outbound, _ in
            var iterator = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
            guard case .text(let snapshot)? = try await iterator.next(), snapshot.hasPrefix(#"{"properties""#) else {
                Issue.record("no snapshot first"); return
            }
            for message in messages {
                switch message {
                case .text(let text): try await outbound.write(.text(text))
                case .binary(let buffer): try await outbound.write(.binary(buffer))
                }
            }
            while await received.count < replies, let reply = try await iterator.next() {
                if case .text(let text) = reply { await received.append(text) }
            }
        }
        return (await received.texts, close)
    }

    @Test func aThousandConnectionsLeaveNoSessionNoControlAndFlatMemory() async throws {
        let allocations = Allocations()
        registry.onOpen = { allocations.watch($0) }
        try await withServer { client in
            let pin = #"{"type":"pointer","control":"pin","phase":"down","x":10,"y":10}"#
            func cycles(_ count: Int) async throws {
                for _ in 0..<count { _ = try await exchange(client, send: [.text(pin)], replies: 1) }
            }
            try await cycles(200)  // warm-up: allocator pools, NIO's buffers
            #expect(try await eventually { registry.live == 0 })
            let before = residentBytes()
            try await cycles(1000)
            #expect(try await eventually { registry.live == 0 })
            let growth = residentBytes() - before
            print("1,000 connect/disconnect cycles: resident set grew \(growth / 1024) KiB")
            #expect(growth < 8 << 20, "the resident set grew \(growth >> 20) MiB over 1,000 cycles")
        }
        await MainActor.run {
            #expect(registry.opened == 1200 && registry.live == 0)
            #expect(allocations.watched == 1200 * 12 && allocations.alive == 0, "\(allocations.alive) objects outlived their session")
            registry.onOpen = nil
        }
    }

    @Test func anInspectingPageGetsReportsWithinTheLimitAndLeavesNothingBehind() async throws {
        let allocations = Allocations()
        registry.onOpen = { allocations.watch($0) }
        try await withServer { client in
            let (replies, _) = try await exchange(
                client,
                send: [
                    .text(#"{"type":"inspect","on":true,"control":"pin"}"#),
                    .text(#"{"type":"pointer","control":"pin","phase":"down","x":10,"y":10}"#),
                    .text(#"{"type":"inspect","on":false}"#),
                    .text(#"{"type":"pointer","control":"pin","phase":"up","x":10,"y":10}"#),
                ], replies: 4)
            // On: a report; the press: its update and a report; off: nothing; the release: its update alone.
            #expect(replies.map { $0.contains(#""type":"inspector""#) } == [true, false, true, false])
            #expect(replies[2].contains(#""on":["highlighted"]"#) && replies[3].contains(#""pin touchUpInside""#))
            #expect(replies.allSatisfy { $0.utf8.count <= Inspector.maxReportSize })
        }
        #expect(try await eventually { registry.live == 0 && allocations.alive == 0 })
        registry.onOpen = nil
    }

    @Test func aBadMessageGetsAnErrorFrameAndTheConnectionGoesOn() async throws {
        try await withServer { client in
            let (replies, _) = try await exchange(
                client,
                send: [
                    .text("{nope"),
                    .text(#"{"type":"pointer","control":"slider","phase":"down","x":1,"y":1}"#),
                    .text(#"{"type":"pointer","control":"pin","phase":"down","x":1e300,"y":1}"#),
                    .binary(ByteBuffer(string: "0101")),
                    .text(#"{"type":"pointer","control":"visit","phase":"down","x":1,"y":1}"#),
                ], replies: 5)
            #expect(replies.count == 5)
            #expect(replies.prefix(4).allSatisfy { $0.contains(#""type":"error""#) })
            #expect(replies[1].contains(#"unknown control \"slider\""#))
            #expect(replies[4].contains(#""visit touchDown""#), "the connection works after the errors")
        }
    }

    @Test func anOversizeMessageClosesTheConnection() async throws {
        try await withServer { client in
            let huge = #"{"type":"insertText","text":""# + String(repeating: "1", count: 10_000) + #""}"#
            let (_, close) = try await exchange(client, send: [.text(huge)], replies: 1)
            #expect(close?.closeCode == .messageTooLarge)
            try await expectServerStillServes(client)
        }
    }

    @Test func aFloodClosesTheConnection() async throws {
        try await withServer { client in
            let move = #"{"type":"pointer","control":"pin","phase":"move","x":1,"y":1}"#
            let flood = [WebSocketMessage](repeating: .text(move), count: WebServer.maxMessagesPerSecond * 3)
            let (_, close) = try await exchange(client, send: flood, replies: .max)
            #expect(close?.closeCode == .policyViolation)
            try await expectServerStillServes(client)
        }
        #expect(registry.live == 0)
    }

    @Test func thePageIsServed() async throws {
        try await withServer { client in
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains(#"<script src="/page.js"></script>"#))
            }
            // The page's script and style, and the inspector panel's, beside it.
            for (path, type, text) in [
                ("/page.js", "text/javascript; charset=utf-8", #"new WebSocket(`ws://${location.host}/ws`)"#),
                ("/page.css", "text/css; charset=utf-8", "#pin .dot"),
                ("/inspector.js", "text/javascript; charset=utf-8", "const Inspector"),
                ("/inspector.css", "text/css; charset=utf-8", "#inspector-body"),
            ] {
                try await client.execute(uri: path, method: .get) { response in
                    #expect(response.status == .ok && response.headers[.contentType] == type, "\(path)")
                    #expect(String(buffer: response.body).contains(text), "\(path)")
                }
            }
        }
    }

    private func expectServerStillServes(_ client: any TestClientProtocol) async throws {
        let tap = #"{"type":"pointer","control":"visit","phase":"down","x":1,"y":1}"#
        let (replies, close) = try await exchange(client, send: [.text(tap)], replies: 1)
        #expect(close?.closeCode == .normalClosure && replies.count == 1)
    }
}

/// Replies collected inside a WebSocket handler.
actor Received {
    private(set) var texts: [String] = []
    var count: Int { texts.count }
    func append(_ text: String) { texts.append(text) }
}
