/// The events a control sends, with UIKit's `UIControl.Event` values.
///
/// Touch events come from touch tracking; editing events from text controls; the application
/// range `0x0F000000` holds custom events, allocated by name (``allocate(named:)``); the top
/// nibble is reserved for the framework, whose components allocate their events there.
public struct ControlEvents: OptionSet, Hashable, Sendable {
    /// The event bits.
    public let rawValue: UInt

    /// Creates events from their bits.
    @inlinable
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// A touch went down in the control.
    public static let touchDown = ControlEvents(rawValue: 1 << 0)
    /// A repeated touch went down (tap count above one).
    public static let touchDownRepeat = ControlEvents(rawValue: 1 << 1)
    /// A touch moved within the control's tracking area.
    public static let touchDragInside = ControlEvents(rawValue: 1 << 2)
    /// A touch moved outside the control's tracking area.
    public static let touchDragOutside = ControlEvents(rawValue: 1 << 3)
    /// A touch moved from outside the tracking area to inside.
    public static let touchDragEnter = ControlEvents(rawValue: 1 << 4)
    /// A touch moved from inside the tracking area to outside.
    public static let touchDragExit = ControlEvents(rawValue: 1 << 5)
    /// A touch was lifted inside the tracking area.
    public static let touchUpInside = ControlEvents(rawValue: 1 << 6)
    /// A touch was lifted outside the tracking area.
    public static let touchUpOutside = ControlEvents(rawValue: 1 << 7)
    /// Tracking was cancelled.
    public static let touchCancel = ControlEvents(rawValue: 1 << 8)
    /// The control's value changed.
    public static let valueChanged = ControlEvents(rawValue: 1 << 12)
    /// The control's primary action fired (for a button, a completed tap).
    public static let primaryActionTriggered = ControlEvents(rawValue: 1 << 13)
    /// A menu action fired.
    public static let menuActionTriggered = ControlEvents(rawValue: 1 << 14)
    /// Editing began.
    public static let editingDidBegin = ControlEvents(rawValue: 1 << 16)
    /// The edited text changed.
    public static let editingChanged = ControlEvents(rawValue: 1 << 17)
    /// Editing ended.
    public static let editingDidEnd = ControlEvents(rawValue: 1 << 18)
    /// Editing ended with the return key.
    public static let editingDidEndOnExit = ControlEvents(rawValue: 1 << 19)
    /// Every touch event (`0x0FFF`).
    public static let allTouchEvents = ControlEvents(rawValue: 0x0FFF)
    /// Every editing event (`0x000F0000`).
    public static let allEditingEvents = ControlEvents(rawValue: 0x000F_0000)
    /// The range of custom events for applications (`0x0F000000`).
    public static let applicationReserved = ControlEvents(rawValue: 0x0F00_0000)
    /// The range reserved for the framework (`0xF0000000`).
    public static let systemReserved = ControlEvents(rawValue: 0xF000_0000)
    /// Every event.
    public static let allEvents = ControlEvents(rawValue: 0xFFFF_FFFF)

    /// A custom event picked by hand in the application range `0x0F000000`, which is wholly
    /// the app's (the library's own events, such as ``typeComplete``, use ``systemReserved``).
    ///
    /// ```swift
    /// extension ControlEvents {
    ///     static let saved = ControlEvents.application(1 << 24)
    /// }
    /// ```
    ///
    /// The allocator does not know bits picked by hand: an event allocated by name
    /// (``allocate(named:)``, by the app or a library it uses) may get the same bit. Pick by
    /// hand only in an app that allocates no event; otherwise allocate every event by name.
    ///
    /// Stops the program (a programmer error, in release builds too) when `rawValue` is empty
    /// or has a bit outside `0x0F000000`.
    public static func application(_ rawValue: UInt) -> ControlEvents {
        let events = ControlEvents(rawValue: rawValue)
        guard !events.isEmpty, applicationReserved.isSuperset(of: events) else {
            misuse(
                "ControlEvents.application(0x\(String(rawValue, radix: 16, uppercase: true))): a custom event needs bits of the application range 0x0F000000 only, such as 1 << 24"
            )
        }
        return events
    }
}

extension ControlEvents: CustomStringConvertible {
    private static let names: [(ControlEvents, String)] = [
        (.touchDown, "touchDown"), (.touchDownRepeat, "touchDownRepeat"), (.touchDragInside, "touchDragInside"),
        (.touchDragOutside, "touchDragOutside"), (.touchDragEnter, "touchDragEnter"), (.touchDragExit, "touchDragExit"),
        (.touchUpInside, "touchUpInside"), (.touchUpOutside, "touchUpOutside"), (.touchCancel, "touchCancel"),
        (.valueChanged, "valueChanged"), (.primaryActionTriggered, "primaryActionTriggered"),
        (.menuActionTriggered, "menuActionTriggered"), (.editingDidBegin, "editingDidBegin"),
        (.editingChanged, "editingChanged"), (.editingDidEnd, "editingDidEnd"),
        (.editingDidEndOnExit, "editingDidEndOnExit"), (.typeComplete, "typeComplete"),
    ]

    /// The events' names joined by `" | "`: UIKit's names, then the names allocated events
    /// were given (``allocate(named:)``); other bits in hexadecimal.
    public var description: String {
        var parts = Self.names.filter { contains($0.0) }.map(\.1)
        var rest = subtracting(Self.names.reduce(into: ControlEvents()) { $0.formUnion($1.0) })
        if !rest.isEmpty {
            let allocated = CustomEventNames.shared.all
            for bit in rest.bits {
                guard let name = allocated[bit] else { continue }
                parts.append(name)
                rest.remove(bit)
            }
        }
        if !rest.isEmpty { parts.append(rest.hexadecimal) }
        return parts.isEmpty ? "none" : parts.joined(separator: " | ")
    }
}
