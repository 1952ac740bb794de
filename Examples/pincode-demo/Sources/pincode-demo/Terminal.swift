#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The terminal in raw mode (no echo, key by key), restored on exit and on Ctrl-C.
enum Terminal {
    nonisolated(unsafe) private static var saved = termios()
    nonisolated(unsafe) private static var isRaw = false

    static var isInteractive: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 }

    static func enterRawMode() {
        tcgetattr(STDIN_FILENO, &saved)
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw)
        isRaw = true
        write("\u{1B}[?25l")  // hide the cursor
        signal(SIGINT) { _ in
            Terminal.restore()
            _exit(130)
        }
        signal(SIGTERM) { _ in
            Terminal.restore()
            _exit(143)
        }
    }

    static func restore() {
        guard isRaw else { return }
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
        isRaw = false
        write("\u{1B}[?25h\n")
    }

    /// The next byte typed, or nil at end of input.
    static func readByte() -> UInt8? {
        var byte: UInt8 = 0
        return read(STDIN_FILENO, &byte, 1) == 1 ? byte : nil
    }

    static func write(_ text: String) {
        var text = text
        text.withUTF8 { _ = Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
    }
}
