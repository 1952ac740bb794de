import Foundation
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

    /// A bound subview whose own setter lets go of the last reference to it (it leaves its
    /// superview): the write holds it, so the setter runs on a live view (ASan checks the
    /// memory), and the view goes when the write ends — its `deinit`, isolated to the main
    /// actor, runs there and then. Its other bound value is skipped and purged, and the
    /// control's own is still written.
    @Test func aBoundSubviewWhoseSetterLetsGoOfItsLastReference() {
        final class Detaching: View {
            var isDetached = false { didSet { if isDetached { removeFromSuperview() } } }
        }
        let control = Control()
        weak var released: Detaching?
        do {
            let badge = Detaching()
            control.addSubview(badge)
            control.setValue(true, for: \.isDetached, of: badge, when: .containing(.selected))
            control.setValue(true, for: \.isHidden, of: badge, when: .containing(.selected))
            released = badge
        }
        control.setValue(true, for: \.isHidden, when: .containing(.selected))
        control.isSelected = true
        #expect(released == nil && control.subviews.isEmpty)
        #expect(control.isHidden)
        #expect(control.boundProperties.count == 1)
    }

    /// A view whose last reference goes on another thread is deinitialised on the main actor.
    /// Until the main actor runs its `deinit`, its lifetime has not ended and its subviews
    /// still return it as their superview (the window `View.superview` documents); once it
    /// has run, both have.
    @Test func aViewReleasedOnAnotherThreadGoesOnTheMainActor() async {
        let child = View(), box = ViewBox(View())
        box.view?.addSubview(child)
        let lifetime = box.view!.lifetime
        releaseOnAnotherThread(box)
        #expect(!lifetime.hasEnded && child.superview != nil)
        for _ in 0..<1_000 where !lifetime.hasEnded { await Task.yield() }
        #expect(lifetime.hasEnded && child.superview == nil)
    }

    /// Views bound by a control, each let go of on another thread while the control applies:
    /// their `deinit`s wait for the main actor, so no write meets one (ASan, TSan), and every
    /// view goes once the main actor is free.
    @Test func viewsReleasedOnAnotherThreadWhileTheControlApplies() async {
        let control = Control()
        var lifetimes: [TargetLifetime] = []
        for _ in 0..<200 {
            let box = ViewBox(View())
            control.setValue(true, for: \.isHidden, of: box.view!, when: .containing(.selected))
            lifetimes.append(box.view!.lifetime)
            DispatchQueue.global().async { box.view = nil }
            for _ in 0..<10 { control.isSelected.toggle() }
        }
        for _ in 0..<10_000 where lifetimes.contains(where: { !$0.hasEnded }) { await Task.yield() }
        #expect(lifetimes.allSatisfy { $0.hasEnded })
        control.isSelected.toggle()
        #expect(control.boundProperties.isEmpty)
    }
}

/// Holds a view for another thread to let go of.
private final class ViewBox: @unchecked Sendable {
    var view: View?
    init(_ view: View) { self.view = view }
}

/// Lets go of `box`'s view on another thread, and returns once it has (the main actor blocked
/// meanwhile: a `deinit` sent to it waits).
private func releaseOnAnotherThread(_ box: ViewBox) {
    let released = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        box.view = nil
        released.signal()
    }
    released.wait()
}
