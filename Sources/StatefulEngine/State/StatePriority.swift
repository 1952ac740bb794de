/// The priority of a bound value: among the values whose descriptors match the current state,
/// the highest priority wins (``StateDescriptor``). A named point on the scale, as
/// `UILayoutPriority` is, or any number.
///
/// The modes' default priorities are points of the same scale: `exactly` is ``required``,
/// `containing` is `required - 1`, `notContaining` is ``high``, `containingAny` and
/// `containingNone` are ``default``.
///
/// ```swift
/// control.setValue(Color.red, for: \.tint, of: badge, when: .containing(.selected, priority: .high + 1))
/// ```
public struct StatePriority: RawRepresentable, Hashable, Comparable, Sendable, ExpressibleByIntegerLiteral,
    CustomStringConvertible
{
    /// The number; higher wins.
    public var rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The priority `value`.
    public init(_ value: Int32) { rawValue = value }

    public init(integerLiteral value: Int32) { rawValue = value }

    /// 1000: `exactly`'s default; above it, a value wins over every default.
    public static let required: StatePriority = 1000
    /// 750: `notContaining`'s default.
    public static let high: StatePriority = 750
    /// 500: `containingAny`'s and `containingNone`'s default.
    public static let `default`: StatePriority = 500
    /// 250: below every default.
    public static let low: StatePriority = 250

    /// The priority `offset` above `priority` (below, for a negative offset). Stops the program
    /// when the result leaves `Int32`'s range.
    public static func + (priority: StatePriority, offset: Int32) -> StatePriority {
        StatePriority(priority.rawValue + offset)
    }

    /// The priority `offset` below `priority`.
    public static func - (priority: StatePriority, offset: Int32) -> StatePriority {
        StatePriority(priority.rawValue - offset)
    }

    public static func < (lhs: StatePriority, rhs: StatePriority) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
        switch self {
        case .required: "required"
        case .high: "high"
        case .default: "default"
        case .low: "low"
        default: "\(rawValue)"
        }
    }
}
