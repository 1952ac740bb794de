/// A colour by name and RGB, for the components' state-bound appearance.
public struct Color: Hashable, Sendable, CustomStringConvertible {
    /// The colour's name.
    public let name: String
    /// The red, green and blue components.
    public let red: UInt8, green: UInt8, blue: UInt8
    /// Whether the colour is fully transparent.
    public let isClear: Bool

    /// Creates a colour.
    public init(_ name: String, red: UInt8, green: UInt8, blue: UInt8, isClear: Bool = false) {
        (self.name, self.red, self.green, self.blue, self.isClear) = (name, red, green, blue, isClear)
    }

    /// Fully transparent.
    public static let clear = Color("clear", red: 0, green: 0, blue: 0, isClear: true)
    /// White.
    public static let white = Color("white", red: 255, green: 255, blue: 255)
    /// Grey.
    public static let grey = Color("grey", red: 142, green: 142, blue: 147)
    /// Dark grey.
    public static let darkGrey = Color("darkGrey", red: 72, green: 72, blue: 74)
    /// Blue.
    public static let blue = Color("blue", red: 10, green: 132, blue: 255)
    /// Purple.
    public static let purple = Color("purple", red: 175, green: 82, blue: 222)
    /// Green.
    public static let green = Color("green", red: 48, green: 209, blue: 88)
    /// Red.
    public static let red = Color("red", red: 255, green: 69, blue: 58)

    /// The colour's name.
    public var description: String { name }
}
