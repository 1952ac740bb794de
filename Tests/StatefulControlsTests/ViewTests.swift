import Testing
@testable import StatefulControls

/// The view hierarchy: a superview holds its subviews; a subview's `superview` is not a
/// reference the subview holds, and is cleared when the superview goes, as UIKit's is.
@Suite("View: hierarchy and lifetime")
@MainActor
struct ViewTests {
    @Test func addingMovingAndRemovingASubview() {
        let first = View(), second = View(), child = View()
        first.addSubview(child)
        #expect(child.superview === first && child.next === first)
        #expect(first.subviews.count == 1 && first.subviews[0] === child)
        second.addSubview(child)  // taken from its previous superview
        #expect(child.superview === second && first.subviews.isEmpty && second.subviews.count == 1)
        child.removeFromSuperview()
        #expect(child.superview == nil && child.next == nil && second.subviews.isEmpty)
    }

    @Test func aSubviewThatOutlivesItsSuperviewHasNoSuperview() {
        let child = View()
        weak var released: View?
        do {
            let parent = Control()
            parent.addSubview(child)
            #expect(child.superview === parent)
            released = parent
        }
        #expect(released == nil)
        #expect(child.superview == nil && child.next == nil)
    }

    /// The lifetime a resolver with the portable access holds a bound view by: made once, and
    /// ended when the view goes.
    @Test func aViewsLifetimeIsMadeOnceAndEndsWithTheView() {
        var view: View? = View()
        let lifetime = view!.lifetime
        #expect(view!.lifetime === lifetime && !lifetime.hasEnded)
        view = nil
        #expect(lifetime.hasEnded)
    }

    /// A control's bound subview that goes (removed, then released) is skipped and its rules
    /// purged; the control's own bound value is still written.
    @Test func aBoundSubviewThatGoesIsPurged() throws {
        let control = Control()
        var badge: View? = View()
        control.addSubview(badge!)
        control.setValue(true, for: \.isHidden, of: badge!, forAllStatesContained: .selected)
        control.setValue(true, for: \.isHidden, forAllStatesContained: .selected)
        control.isSelected = true
        #expect(badge!.isHidden && control.isHidden)
        badge!.removeFromSuperview()
        badge = nil
        control.isSelected = false
        #expect(!control.isHidden)
        #expect(control.boundProperties.count == 1)
    }
}
