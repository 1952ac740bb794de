// The text components: Label, and TextView, a control that edits text and posts its changes.

import Foundation

extension Notification.Name {
    /// Posted by a ``TextView`` after its text changed; the object is the text view.
    public static let textViewTextDidChange = Notification.Name("StatefulControls.TextViewTextDidChange")
}

/// A view that shows a line of text.
@MainActor
public final class Label: View {
    /// The text shown.
    public var text: String

    /// Creates a label.
    public init(text: String = "", frame: Rect = .zero) {
        self.text = text
        super.init(frame: frame)
    }
}

/// Receives a ``TextView``'s editing callbacks. The placeholder does not use it: it is yours.
@MainActor
public protocol TextViewDelegate: AnyObject {
    /// The text changed.
    func textViewDidChange(_ textView: TextView)
}

/// An editable text control with a placeholder.
///
/// The placeholder label is shown exactly when the text is empty. It is driven by a
/// ``NotificationProxy`` observing the view's own `textViewTextDidChange`,
/// not by the delegate, which stays free for the user.
@MainActor
public final class TextView: Control {
    /// The text. Every change, by editing or by assignment, posts
    /// `textViewTextDidChange` (UIKit posts it for edits only)
    /// and tells the delegate.
    public var text = "" {
        didSet {
            guard text != oldValue else { return }
            delegate?.textViewDidChange(self)
            notificationCenter.post(name: .textViewTextDidChange, object: self)
        }
    }

    /// The placeholder's text.
    public var placeholder: String {
        get { placeholderLabel.text }
        set { placeholderLabel.text = newValue }
    }

    /// The label showing the placeholder.
    public let placeholderLabel = Label()

    /// The delegate.
    public weak var delegate: TextViewDelegate?

    /// The center the text view posts to and observes.
    public let notificationCenter: NotificationCenter

    /// Creates a text view posting to `notificationCenter`.
    public init(
        placeholder: String = "", notificationCenter: NotificationCenter = .default,
        frame: Rect = Rect(x: 0, y: 0, width: 200, height: 80)
    ) {
        self.notificationCenter = notificationCenter
        super.init(frame: frame)
        placeholderLabel.text = placeholder
        placeholderLabel.frame = bounds
        addSubview(placeholderLabel)
        NotificationProxy.observe(.textViewTextDidChange, object: self, center: notificationCenter, owner: self) { textView, _ in
            textView.placeholderLabel.isHidden = !textView.text.isEmpty
        }
    }

    /// Inserts text at the end, as typing does, and sends ``ControlEvents/editingChanged``.
    /// Ignored while disabled.
    public func insertText(_ string: String) {
        guard isEnabled, !string.isEmpty else { return }
        text += string
        sendActions(for: .editingChanged)
    }

    /// Deletes the last character, as the delete key does, and sends
    /// ``ControlEvents/editingChanged``. Ignored while disabled.
    public func deleteBackward() {
        guard isEnabled, !text.isEmpty else { return }
        text.removeLast()
        sendActions(for: .editingChanged)
    }
}
