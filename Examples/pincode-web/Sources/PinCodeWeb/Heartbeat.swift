import HummingbirdWebSocket
import NIOCore
import NIOWebSocket
import ServiceLifecycle

/// Pings every open WebSocket once a period, from one timer for the whole server.
///
/// A ping keeps a page that waits for its user connected through proxies that close idle
/// connections, and finds a page that vanished without closing: its ping goes unacknowledged and
/// the kernel ends the connection after its retransmission timeout. hummingbird-websocket's own
/// ping loop sleeps in a task per connection; on Linux a cancelled `Task.sleep` keeps its timer
/// until the deadline, so each closed connection held memory for up to a period.
actor Heartbeat: Service {
    /// The time between two pings of a connection.
    nonisolated let period: Duration
    private var connections: [Int: WebSocketOutboundWriter] = [:]

    init(period: Duration) { self.period = period }

    /// Pings session `id`'s connection from now on.
    func add(_ id: Int, _ outbound: WebSocketOutboundWriter) { connections[id] = outbound }

    /// Stops pinging session `id`'s connection (it is closed).
    func remove(_ id: Int) { connections[id] = nil }

    private var open: [WebSocketOutboundWriter] { Array(connections.values) }

    /// Pings until the server shuts down.
    nonisolated func run() async throws {
        await cancelWhenGracefulShutdown {
            while (try? await Task.sleep(for: self.period)) != nil {
                for outbound in await self.open {
                    // A task each: a peer that stopped reading does not hold up the others'
                    // pings, and its write fails when its connection ends.
                    Task { try? await outbound.write(.custom(WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer()))) }
                }
            }
        }
    }
}
