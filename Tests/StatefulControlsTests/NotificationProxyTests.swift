import Foundation
import Testing
@testable import StatefulControls

/// Tells when it is released: a block that captured it was freed.
final class Sentinel {}

@MainActor
@Suite("NotificationProxy and TextView")
struct NotificationProxyTests {
    let center = NotificationCenter()
    let ping = Notification.Name("test.ping")
    let pong = Notification.Name("test.pong")

    @Test func theObserverGoesAwayWithItsOwner() {
        var runs = 0
        weak var weakProxy: NotificationProxy?
        weak var weakSentinel: Sentinel?
        do {
            let owner = View()
            let sentinel = Sentinel()
            weakSentinel = sentinel
            weakProxy = NotificationProxy.observe(ping, center: center, owner: owner) { _, _ in
                withExtendedLifetime(sentinel) { runs += 1 }
            }
            center.post(name: ping, object: nil)
            #expect(runs == 1)
            #expect(owner.attachments.count == 1)
        }
        center.post(name: ping, object: nil)
        #expect(runs == 1)
        #expect(weakProxy == nil)
        #expect(weakSentinel == nil)  // the center let go of the block: nothing leaks
    }

    @Test func theBlockGetsItsOwnerWithoutRetainingIt() {
        final class Owner: View { var received: [String] = [] }
        weak var weakOwner: Owner?
        do {
            let owner = Owner()
            weakOwner = owner
            NotificationProxy.observe(ping, center: center, owner: owner) { owner, note in
                owner.received.append(note.name.rawValue)
            }
            center.post(name: ping, object: nil)
            #expect(owner.received == ["test.ping"])
        }
        #expect(weakOwner == nil)  // no cycle through the block
    }

    @Test func aProxyCanBeCancelledByHand() {
        let owner = View()
        var runs = 0
        let proxy = NotificationProxy.observe(ping, center: center, owner: owner) { _, _ in runs += 1 }
        center.post(name: ping, object: nil)
        proxy.cancel()
        center.post(name: ping, object: nil)
        #expect(runs == 1 && proxy.isCancelled)
        #expect(owner.attachments.isEmpty)
        proxy.cancel()  // twice is harmless
    }

    @Test func severalProxiesOnSeveralNamesAndCenters() {
        let owner = View()
        let other = NotificationCenter()
        var log: [String] = []
        NotificationProxy.observe(ping, center: center, owner: owner) { _, _ in log.append("ping") }
        NotificationProxy.observe(pong, center: center, owner: owner) { _, _ in log.append("pong") }
        NotificationProxy.observe(ping, center: other, owner: owner) { _, _ in log.append("other ping") }
        let sender = NSObject()
        NotificationProxy.observe(ping, object: sender, center: center, owner: owner) { _, _ in log.append("ping from sender") }
        center.post(name: ping, object: nil)
        center.post(name: pong, object: nil)
        other.post(name: ping, object: nil)
        #expect(log == ["ping", "pong", "other ping"])
        log = []
        center.post(name: ping, object: sender)  // the center calls its observers in no set order
        #expect(log.sorted() == ["ping", "ping from sender"])
        #expect(owner.attachments.count == 4)
    }

    @Test func aNotificationPostedOffTheMainActorRunsTheBlockOnItLater() async throws {
        let owner = View()
        var runs = 0
        NotificationProxy.observe(ping, center: center, owner: owner) { _, _ in
            MainActor.assertIsolated()
            runs += 1
        }
        let center = self.center, ping = self.ping
        await Task.detached { center.post(name: ping, object: nil) }.value
        for _ in 0..<100 where runs == 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(runs == 1)
    }

    @Test func theTextViewPlaceholderShowsExactlyWhenTheTextIsEmpty() {
        final class Delegate: TextViewDelegate {
            var changes = 0
            func textViewDidChange(_ textView: TextView) { changes += 1 }
        }
        let textView = TextView(placeholder: "Say something", notificationCenter: center)
        let delegate = Delegate()
        textView.delegate = delegate
        var edits = 0
        textView.addAction(Action { _ in edits += 1 }, for: .editingChanged)
        #expect(!textView.placeholderLabel.isHidden && textView.placeholder == "Say something")
        textView.insertText("H")
        #expect(textView.placeholderLabel.isHidden)
        textView.insertText("i")
        textView.deleteBackward()
        #expect(textView.placeholderLabel.isHidden)
        textView.deleteBackward()
        #expect(!textView.placeholderLabel.isHidden)
        textView.text = "set in code"
        #expect(textView.placeholderLabel.isHidden)
        textView.text = ""
        #expect(!textView.placeholderLabel.isHidden)
        #expect(edits == 4)
        #expect(delegate.changes == 6)  // the delegate stays the user's, and still hears every change
    }
}
