import Testing
@testable import StatefulEngine

@Suite("ControlState and StateDescriptor")
struct StateTests {
    @Test func systemStatesHaveUIKitValues() {
        #expect(ControlState.normal.rawValue == 0)
        #expect(ControlState.highlighted.rawValue == 1 << 0)
        #expect(ControlState.disabled.rawValue == 1 << 1)
        #expect(ControlState.selected.rawValue == 1 << 2)
        #expect(ControlState.focused.rawValue == 1 << 3)
        #expect(ControlState.application.rawValue == 0x00FF_0000)
        #expect(ControlState.reserved.rawValue == 0xFF00_0000)
    }

    @Test func descriptionNamesTheStates() throws {
        let on = try ControlState.allocate(named: "com.example.tests.on")
        #expect(ControlState.normal.description == "normal")
        #expect(ControlState([.selected, .highlighted]).description == "highlighted | selected")
        #expect(ControlState([.focused, on]).description == "focused | com.example.tests.on")
        #expect(ControlState(rawValue: 0x8000_0000).description == "0x80000000")
    }

    @Test func theAllocatorHandsOutEachBitOnceAndThenFailsNamingTheHolders() throws {
        let allocator = CustomStateNames()
        var states: [ControlState] = []
        for index in 0..<8 { states.append(try allocator.allocate(named: "com.example.s\(index)")) }
        #expect(Set(states).count == 8)
        #expect(states.reduce(ControlState()) { $0.union($1) } == .application)
        #expect(try allocator.allocate(named: "com.example.s3") == states[3])
        let error = #expect(throws: CustomStateError.self) { try allocator.allocate(named: "com.example.ninth") }
        #expect(error?.name == "com.example.ninth")
        #expect(error?.holders == (0..<8).map { "com.example.s\($0)" })
        #expect(error?.description.contains("all 8 bits") == true)
    }

    @Test func defaultPrioritiesFollowTheDesign() {
        #expect(StateDescriptor.exactly(.selected).priority == 1000)
        #expect(StateDescriptor.containing(.selected).priority == 999)
        #expect(StateDescriptor.notContaining(.selected).priority == 750)
        #expect(StateDescriptor.containingAny(.selected).priority == 500)
        #expect(StateDescriptor.containingNone(.selected).priority == 500)
        #expect(StateDescriptor.containing(.selected, priority: 7).priority == 7)
    }

    @Test func identityIsModeStatePriorityAndName() {
        #expect(StateDescriptor.containingAny(.selected) != .containingNone(.selected))
        #expect(StateDescriptor.containing(.selected) != .containing(.selected, priority: 1))
        #expect(StateDescriptor.containing(.selected) == .containing(.selected))
        let a = StateDescriptor.custom("odd", priority: 10) { $0.rawValue % 2 == 1 }
        let b = StateDescriptor.custom("odd", priority: 10) { _ in false }
        #expect(a == b && a.hashValue == b.hashValue)
        #expect(a != .custom("even", priority: 10) { _ in false })
        #expect(a.name == "odd" && StateDescriptor.exactly([]).name == nil)
    }

    struct Example: Sendable {
        let descriptor: StateDescriptor, state: ControlState, matches: Bool
        init(_ descriptor: StateDescriptor, _ state: ControlState, _ matches: Bool) {
            (self.descriptor, self.state, self.matches) = (descriptor, state, matches)
        }
    }

    static let examples: [Example] = [
        Example(.exactly([]), .normal, true),
        Example(.exactly([]), .selected, false),
        Example(.containing([]), .normal, true),
        Example(.containing([]), [.selected, .focused], true),
        Example(.notContaining([]), .selected, false),
        Example(.containingAny([]), .selected, false),
        Example(.containingNone([]), .selected, true),
        Example(.containing([.selected, .focused]), .selected, false),
        Example(.notContaining([.selected, .focused]), .selected, true),
        Example(.containingAny([.selected, .focused]), [.focused, .highlighted], true),
        Example(.containingNone([.selected, .focused]), .highlighted, true),
    ]

    @Test(arguments: examples)
    func matchesFollowTheFormulas(_ example: Example) {
        #expect(example.descriptor.matches(example.state) == example.matches)
    }
}
