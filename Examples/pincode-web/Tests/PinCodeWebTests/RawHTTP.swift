import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An HTTP/1.1 response read off the wire.
struct RawResponse {
    var status: Int
    /// Header values by lowercased name.
    var headers: [String: String]
    /// The bytes after the headers: the body, or a WebSocket's frames.
    var rest: [UInt8]
}

/// A plain TCP connection to the server on 127.0.0.1, for what the test client hides: the bytes
/// after a HEAD response's headers, a refused upgrade's status, the frames after an upgrade.
/// Its calls block (5-second receive timeout): ``exchange(port:_:)`` runs them off the
/// concurrency pool.
final class RawConnection: @unchecked Sendable {
    private let socket: Int32

    init(port: Int) throws {
        #if canImport(Glibc)
            socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            socket = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard socket >= 0, connected == 0 else { throw POSIXError(.ECONNREFUSED) }
    }

    deinit { close(socket) }

    func write(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, 0) }
    }

    /// Reads until `done` says the bytes are complete, the server closes, or 5 seconds pass.
    func receive(until done: ([UInt8]) -> Bool = { _ in false }) -> [UInt8] {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while !done(received) {
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            received += chunk[..<count]
        }
        return received
    }

    /// Sends `request` and reads its response: to the server's close when `done` is nil.
    func exchange(_ request: String, until done: ([UInt8]) -> Bool = { _ in false }) -> RawResponse? {
        write(request)
        return RawResponse(parsing: receive(until: done))
    }

    /// ``exchange(_:until:)`` on a dispatch thread: the concurrency pool, which runs the server's
    /// handlers, has a thread a core.
    func exchange(_ request: String, until done: @escaping @Sendable ([UInt8]) -> Bool = { _ in false }) async -> RawResponse? {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: self.exchange(request, until: done)) }
        }
    }

    /// Sends `request` on a new connection and reads the response until the server closes it.
    static func exchange(port: Int, _ request: String) async throws -> RawResponse? {
        try await RawConnection(port: port).exchange(request)
    }
}

extension RawResponse {
    init?(parsing bytes: [UInt8]) {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let end = (0...max(0, bytes.count - 4)).first(where: { bytes[$0..<min($0 + 4, bytes.count)].elementsEqual(separator) }),
            let head = String(bytes: bytes[..<end], encoding: .utf8)
        else { return nil }
        let lines = head.components(separatedBy: "\r\n")
        guard let status = lines.first?.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        (self.status, self.headers, self.rest) = (status, headers, Array(bytes[(end + 4)...]))
    }

    /// The server's WebSocket frames in ``rest`` (unmasked), as opcode and payload; a partial last
    /// frame is left out.
    var frames: [(opcode: UInt8, payload: [UInt8])] {
        var frames: [(opcode: UInt8, payload: [UInt8])] = []
        var index = 0
        while index + 2 <= rest.count {
            var length = Int(rest[index + 1] & 0x7f)
            var start = index + 2
            let extra = length == 126 ? 2 : length == 127 ? 8 : 0
            guard start + extra <= rest.count else { break }
            if extra > 0 { length = rest[start..<start + extra].reduce(0) { $0 << 8 | Int($1) } }
            start += extra
            guard start + length <= rest.count else { break }
            frames.append((rest[index] & 0x0f, Array(rest[start..<start + length])))
            index = start + length
        }
        return frames
    }
}

/// The request line and headers of a WebSocket upgrade to `/ws`, with `origin` when not nil.
func upgradeRequest(port: Int, origin: String?, host: String? = nil) -> String {
    let host = host ?? "127.0.0.1:\(port)"
    return "GET /ws HTTP/1.1\r\nHost: \(host)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        + (origin.map { "Origin: \($0)\r\n" } ?? "") + "\r\n"
}
