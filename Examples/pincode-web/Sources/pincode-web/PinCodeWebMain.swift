import Foundation
import Hummingbird
import PinCodeScene
import PinCodeWeb

/// `pincode-web [--host 127.0.0.1] [--port 8080] [--allowed-origin ORIGIN ...]`: serves the page
/// and prints its URL.
@main
struct PinCodeWebMain {
    static let usage = """
        usage: pincode-web [--host ADDRESS] [--port PORT] [--allowed-origin ORIGIN ...]
          default 127.0.0.1:8080; --port 0 picks a free port
          --allowed-origin: a page's origin (https://example.org) that may open the WebSocket
            besides the server's own pages; repeat it for more
        """

    static func main() async throws {
        var host = "127.0.0.1", port = 8080
        var origins: [String] = []
        var arguments = CommandLine.arguments.dropFirst()
        while let option = arguments.popFirst() {
            switch option {
            case "--host":
                guard let value = arguments.popFirst(), !value.isEmpty else { fail("--host needs an address") }
                host = value
            case "--port":
                guard let value = arguments.popFirst().flatMap(Int.init), (0...65535).contains(value) else {
                    fail("--port needs a number from 0 to 65535")
                }
                port = value
            case "--allowed-origin":
                guard let value = arguments.popFirst(), value.hasPrefix("http://") || value.hasPrefix("https://") else {
                    fail("--allowed-origin needs an origin such as https://example.org")
                }
                origins.append(value)
            case "--help", "-h":
                print(usage)
                return
            default:
                fail("unknown option \(option)")
            }
        }
        let shownHost = host.contains(":") ? "[\(host)]" : host
        let app = WebServer.application(host: host, port: port, registry: SessionRegistry(), origins: OriginPolicy(allowing: origins)) {
            port in
            // Unbuffered: a script reading the pipe sees the URL at once.
            FileHandle.standardOutput.write(Data("pincode-web: serving http://\(shownHost):\(port)/ (Ctrl-C stops)\n".utf8))
        }
        try await app.runService()
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("pincode-web: \(message)\n\(usage)\n".utf8))
        exit(2)
    }
}
