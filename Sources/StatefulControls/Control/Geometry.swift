/// A point in a view's coordinate space.
public struct Point: Hashable, Sendable, CustomStringConvertible {
    /// The horizontal coordinate.
    public var x: Double
    /// The vertical coordinate.
    public var y: Double
    /// Creates a point.
    public init(x: Double, y: Double) { (self.x, self.y) = (x, y) }
    /// The origin.
    public static let zero = Point(x: 0, y: 0)
    /// `(x, y)`.
    public var description: String { "(\(x), \(y))" }
}

/// A width and a height.
public struct Size: Hashable, Sendable, CustomStringConvertible {
    /// The width.
    public var width: Double
    /// The height.
    public var height: Double
    /// Creates a size.
    public init(width: Double, height: Double) { (self.width, self.height) = (width, height) }
    /// No width and no height.
    public static let zero = Size(width: 0, height: 0)
    /// `WxH`.
    public var description: String { "\(width)x\(height)" }
}

/// An axis-aligned rectangle.
public struct Rect: Hashable, Sendable, CustomStringConvertible {
    /// The top-left corner.
    public var origin: Point
    /// The width and height.
    public var size: Size
    /// Creates a rectangle from its corner and size.
    public init(origin: Point, size: Size) { (self.origin, self.size) = (origin, size) }
    /// Creates a rectangle from its coordinates.
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.init(origin: Point(x: x, y: y), size: Size(width: width, height: height))
    }
    /// The empty rectangle at the origin.
    public static let zero = Rect(origin: .zero, size: .zero)

    /// The rectangle grown by `dx` on the left and right and `dy` on the top and bottom.
    public func insetBy(dx: Double, dy: Double) -> Rect {
        Rect(x: origin.x + dx, y: origin.y + dy, width: size.width - 2 * dx, height: size.height - 2 * dy)
    }

    /// Whether `point` lies inside, edges included.
    public func contains(_ point: Point) -> Bool {
        point.x >= origin.x && point.x <= origin.x + size.width && point.y >= origin.y && point.y <= origin.y + size.height
    }

    /// The origin and the size.
    public var description: String { "\(origin) \(size)" }
}
