/// Types from another module for the property-kinds differential test (StatefulEngineTests):
/// a key path to a `public var` of a class declared here is formed in the test module, whose
/// compiler sees the class only through its interface.

/// A public final class: a stored, an observed and a computed property.
public final class ForeignFinal {
    /// The observers' calls, in order.
    public var log: [String] = []
    public var stored: Int = 0
    public var observed: String = "initial" {
        willSet { log.append("willSet \(observed)→\(newValue)") }
        didSet { log.append("didSet \(oldValue)→\(observed)") }
    }
    /// Stored as a multiple of ten, read back divided.
    public var computed: Int {
        get { backing / 10 }
        set {
            log.append("set \(newValue)")
            backing = newValue * 10
        }
    }
    private var backing = 0

    public init() {}
}

/// A public open class subclassed in the test module: an open stored property (overridden
/// there), a public non-open observed one and a final stored one.
open class ForeignOpen {
    public var log: [String] = []
    open var value: Int = 0
    public var observed: Double = 0.5 {
        didSet { log.append("ForeignOpen.didSet \(oldValue)→\(observed)") }
    }
    public final var fixed: String = "fixed"

    public init() {}
}
