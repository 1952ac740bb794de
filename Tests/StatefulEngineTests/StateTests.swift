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
        #expect(ControlState.extendedApplication.rawValue == 0xFFFF_FFFF_0000_0000)
        #expect(ControlState.extendedApplication.isDisjoint(with: [.application, .reserved]))
    }

    @Test func descriptionNamesTheStates() throws {
        let on = try ControlState.allocate(named: "com.example.tests.on")
        #expect(ControlState.normal.description == "normal")
        #expect(ControlState([.selected, .highlighted]).description == "highlighted | selected")
        #expect(ControlState([.focused, on]).description == "focused | com.example.tests.on")
        #expect(ControlState(rawValue: 0x8000_0000).description == "0x80000000")
        let archived = try ControlState.allocate(named: "com.example.tests.archived", in: .extendedApplication)
        #expect(archived.rawValue > UInt(UInt32.max))
        #expect(ControlState([.selected, on, archived]).description == "selected | com.example.tests.on | com.example.tests.archived")
    }

    @Test func theAllocatorHandsOutUIKitsEightThenTheExtendedRangeThenFailsNamingTheHolders() throws {
        let allocator = CustomStateNames()
        var states: [ControlState] = []
        for index in 0..<40 { states.append(try allocator.allocate(named: "com.example.s\(index)", in: .applicationRanges)) }
        #expect(states[..<8].map(\.rawValue) == (16..<24).map { 1 << $0 })
        #expect(states[8...].map(\.rawValue) == (32..<64).map { 1 << $0 })
        #expect(states.allSatisfy { $0.isCustom })
        #expect(try allocator.allocate(named: "com.example.s3", in: .applicationRanges) == states[3])
        #expect(try allocator.allocate(named: "com.example.s33", in: .extendedApplication) == states[33])
        let names = (0..<40).map { "com.example.s\($0)" }
        let error = #expect(throws: CustomStateError.self) { try allocator.allocate(named: "com.example.s40", in: .applicationRanges) }
        #expect(error == .rangeFull(name: "com.example.s40", range: .applicationRanges, holders: names))
        #expect(
            error?.description
                == "cannot allocate custom state \"com.example.s40\": all 40 bits of the application ranges 0x00FF0000 and 0xFFFFFFFF00000000 are taken (by \(names.joined(separator: ", ")))"
        )
    }

    @Test func eachRangeIsFullOnItsOwnAndANameKeepsItsBit() throws {
        let allocator = CustomStateNames()
        let extended = try allocator.allocate(named: "com.example.archived", in: .extendedApplication)
        #expect(extended.rawValue == 1 << 32)
        for index in 0..<8 { _ = try allocator.allocate(named: "com.example.app\(index)", in: .application) }
        let full = #expect(throws: CustomStateError.self) { try allocator.allocate(named: "com.example.ninth", in: .application) }
        #expect(full == .rangeFull(name: "com.example.ninth", range: .application, holders: (0..<8).map { "com.example.app\($0)" }))
        #expect(
            full?.description.hasPrefix(
                "cannot allocate custom state \"com.example.ninth\": all 8 bits of the application range 0x00FF0000 are taken (by com.example.app0, "
            ) == true)
        // The same ninth name still fits the extended range, after the state allocated there.
        #expect(try allocator.allocate(named: "com.example.ninth", in: .applicationRanges).rawValue == 1 << 33)
        let outside = #expect(throws: CustomStateError.self) { try allocator.allocate(named: "com.example.archived", in: .application) }
        #expect(outside == .allocatedOutsideRange(name: "com.example.archived", state: extended, range: .application))
        #expect(
            outside?.description
                == "cannot allocate custom state \"com.example.archived\" in the application range 0x00FF0000: the name has bit 0x100000000 already"
        )
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
