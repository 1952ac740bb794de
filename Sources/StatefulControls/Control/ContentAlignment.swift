/// How a control places its content vertically.
public enum ContentVerticalAlignment: Hashable, Sendable {
    case center, top, bottom, fill
}

/// How a control places its content horizontally.
public enum ContentHorizontalAlignment: Hashable, Sendable {
    case center, left, right, fill
    /// Left in a left-to-right layout, right in a right-to-left one.
    case leading
    /// Right in a left-to-right layout, left in a right-to-left one.
    case trailing
}

/// The direction a layout reads in.
public enum LayoutDirection: Hashable, Sendable {
    case leftToRight, rightToLeft
}

extension Control {
    /// ``contentHorizontalAlignment`` with `leading` and `trailing` resolved to `left` or
    /// `right` by ``layoutDirection``.
    public var effectiveContentHorizontalAlignment: ContentHorizontalAlignment {
        switch (contentHorizontalAlignment, layoutDirection) {
        case (.leading, .leftToRight), (.trailing, .rightToLeft): .left
        case (.leading, .rightToLeft), (.trailing, .leftToRight): .right
        case (let alignment, _): alignment
        }
    }
}
