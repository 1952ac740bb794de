import Foundation
import Testing
import StatefulControls

/// Custom events allocated by name: the app's four bits of `applicationReserved`, the
/// library's own events in `systemReserved`, the error once the four are taken, and the
/// misuse of a name the other side holds.
///
/// Each test runs in a child process (an exit test): allocation is process-wide, and these take
/// bits the other tests' examples allocate.
@Suite("Custom events allocated by name")
struct EventAllocationTests {
    static func stderr(_ result: ExitTest.Result?) -> String {
        String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    }

    @Test func namesGetTheFourApplicationBitsThenTheRangeIsFull() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let names = (0..<4).map { "com.example.events.event\($0)" }
            let events = try names.map { try ControlEvents.allocate(named: $0) }
            checkInChild(events.map(\.rawValue) == [1 << 24, 1 << 25, 1 << 26, 1 << 27], "lowest bit first: \(events)")
            checkInChild(try ControlEvents.allocate(named: names[2]) == events[2], "the same name, the same event")
            checkInChild(events[1].description == names[1], "the description names it: \(events[1])")
            checkInChild(
                ControlEvents([events[0], .touchDown]).description == "touchDown | com.example.events.event0",
                "UIKit's names first: \(ControlEvents([events[0], .touchDown]))")
            do throws(CustomEventError) {
                _ = try ControlEvents.allocate(named: "com.example.events.fifth")
                checkInChild(false, "a fifth event is refused")
            } catch {
                checkInChild(
                    error == .rangeFull(name: "com.example.events.fifth", range: .applicationReserved, holders: names),
                    "the error names the four holders: \(error)")
                checkInChild(
                    error.description
                        == "cannot allocate custom event \"com.example.events.fifth\": all 4 bits of the application range 0x0F000000 (applicationReserved) are taken (by com.example.events.event0, com.example.events.event1, com.example.events.event2, com.example.events.event3)",
                    "the description: \(error)")
            }
            // The library's own event is not in the app's range, and still works.
            checkInChild(ControlEvents.typeComplete.rawValue == 1 << 28, "typeComplete: \(ControlEvents.typeComplete.rawValue)")
            let sent = await MainActor.run {
                let pin = PinCodeControl()
                var sent: [ControlEvents] = []
                pin.addAction(Action { _ in sent.append(.typeComplete) }, for: .typeComplete)
                pin.addAction(Action { _ in sent.append(events[3]) }, for: events[3])
                pin.insertText("1357")
                pin.sendActions(for: events[3])
                return sent
            }
            checkInChild(sent == [.typeComplete, events[3]], "events: \(sent)")
        }
        #expect(Self.stderr(result) == "")
    }

    /// Threads allocating the same names at once agree on their events.
    @Test func allocationIsSafeFromAnyThread() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let names = ["com.example.threads.a", "com.example.threads.b"]
            let results = try await withThrowingTaskGroup(of: [ControlEvents].self) { group in
                for _ in 0..<8 { group.addTask { try names.map { try ControlEvents.allocate(named: $0) } } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            checkInChild(Set(results).count == 1 && results[0][0] != results[0][1], "every thread got the same two: \(results)")
        }
        #expect(Self.stderr(result) == "")
    }

    @Test func theAppAllocatingTheLibrarysNameStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = ControlEvents.typeComplete
            _ = try ControlEvents.allocate(named: "org.statefulcontrols.typeComplete")
        }
        #expect(
            Self.stderr(result).contains(
                "ControlEvents.allocate(named: \"org.statefulcontrols.typeComplete\"): the name is held already, by the library's own event 0x10000000 (systemReserved); a name is one event in the process: name each event in its owner's reverse-DNS domain"
            ))
    }

    /// The other way round: the app took the name first, and the library's event cannot have it.
    @Test func theLibraryMeetingItsNameHeldByTheAppStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try ControlEvents.allocate(named: "org.statefulcontrols.typeComplete")
            _ = ControlEvents.typeComplete
        }
        #expect(
            Self.stderr(result).contains(
                "ControlEvents.reserved(named: \"org.statefulcontrols.typeComplete\"): the name is held already, by the app's event 0x1000000 (applicationReserved)"
            ))
    }

    @Test func anEmptyNameStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try ControlEvents.allocate(named: "")
        }
        #expect(
            Self.stderr(result).contains(
                "ControlEvents.allocate(named: \"\") with an empty name; name the event in reverse-DNS form, like \"com.example.saved\""))
    }
}
