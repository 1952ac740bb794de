/// A push button: a title whose colour, like any property, can be bound per state.
@MainActor
open class Button: Control {
    /// The title.
    open var title: String
    /// The title's colour.
    open var titleColor = Color.blue

    /// Creates a button.
    public init(title: String = "", frame: Rect = Rect(x: 0, y: 0, width: 120, height: 44)) {
        self.title = title
        super.init(frame: frame)
    }
}

extension ControlState {
    /// A link-like control that was visited: `0x01000000`, named
    /// `org.statefulcontrols.visited`. A state of the library's own, from the reserved range,
    /// so all eight application states stay the app's.
    public static let visited = ControlState.reserved(ControlState(rawValue: 1 << 24), named: "org.statefulcontrols.visited")
}

/// A button that remembers it was tapped, as a web link remembers it was visited: a custom
/// ``ControlState/visited`` state, and a title colour bound per state (blue, then purple).
@MainActor
public final class VisitableButton: Button {
    /// Whether the button was tapped (sets ``ControlState/visited``).
    @StateFactor public var isVisited = false

    /// Creates a button, blue until visited, purple after.
    public override init(title: String = "", frame: Rect = Rect(x: 0, y: 0, width: 120, height: 44)) {
        super.init(title: title, frame: frame)
        register(.visited, in: .reserved, for: \._isVisited, named: "isVisited")
        // Through the class that declares the property, so that an app's rules through
        // `\Button.titleColor` compete with these with the portable property access too.
        setValue(Color.blue, for: \Button.titleColor, of: self, forInvertedState: .visited)
        setValue(Color.purple, for: \Button.titleColor, of: self, forAllStatesContained: .visited)
    }

    /// A completed tap visits the button.
    public override func endTracking(_ touch: Touch, with event: Event?) {
        super.endTracking(touch, with: event)
        if event?.events.contains(.touchUpInside) == true { isVisited = true }
    }
}
