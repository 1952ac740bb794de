/// A registration that lasts until it is cancelled or its token is released: the one mechanism
/// behind ``StateSubscription``, ``DeliveryObserver`` and ``NotificationProxy``.
///
/// The source holds its tokens weakly, so releasing a token ends the registration as
/// ``cancel()`` does.
@MainActor
public class ObservationToken {
    private var onCancel: (@MainActor () -> Void)?

    /// Whether the registration ended through ``cancel()``.
    public private(set) var isCancelled = false

    /// Ends the registration: its handler is never called again.
    public func cancel() {
        guard !isCancelled else { return }
        isCancelled = true
        let onCancel = onCancel
        self.onCancel = nil
        onCancel?()
    }

    /// Sets what runs once, at ``cancel()`` or when the token is released uncancelled.
    func onCancel(_ body: @escaping @MainActor () -> Void) { onCancel = body }

    isolated deinit { onCancel?() }
}

/// The tokens of one source, held weakly, in registration order. A class, so that a handler
/// may register or cancel tokens while ``forEach(_:)`` runs.
@MainActor
final class WeakTokens<Token: ObservationToken> {
    private struct Entry { weak var token: Token? }
    @exclusivity(unchecked) private var entries: [Entry] = []

    func append(_ token: Token) { entries.append(Entry(token: token)) }

    /// Appends `token` to `tokens`, made with the first token (a source nobody registers with
    /// allocates nothing for them).
    static func append(_ token: Token, to tokens: inout WeakTokens?) {
        if tokens == nil { tokens = WeakTokens() }
        tokens!.append(token)
    }

    /// Whether no token is held (cancelled and released ones are dropped by ``forEach(_:)``).
    var isEmpty: Bool { entries.isEmpty }

    /// Calls `body` with every live token registered when the call starts (a token added by
    /// `body` waits for the next call; one cancelled by it is skipped), then forgets released
    /// and cancelled tokens.
    func forEach(_ body: (Token) -> Void) {
        guard !entries.isEmpty else { return }
        for entry in entries {
            guard let token = entry.token, !token.isCancelled else { continue }
            body(token)
        }
        entries.removeAll { $0.token?.isCancelled ?? true }
    }
}
