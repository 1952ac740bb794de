import SeededRandom
import Testing

@testable import StatefulEngine

/// The resolver parts' dictionary: an array while small, a `Dictionary` beyond, and the same
/// answers as a `Dictionary` throughout.
@Suite("StateResolver parts: CompactDictionary")
struct CompactDictionaryTests {
    @Test func itAnswersAsADictionaryAcrossItsInlineCapacity() {
        var compact = CompactDictionary<Int, String>(), model: [Int: String] = [:]
        var generator = SplitMix64(seed: 7)
        let keys = 3 * CompactDictionary<Int, String>.inlineCapacity
        for step in 0..<5_000 {
            let key = Int(generator.next() % UInt64(keys))
            switch generator.next() % 4 {
            case 0, 1:
                compact[key] = "\(step)"
                model[key] = "\(step)"
            case 2: #expect(compact.removeValue(forKey: key) == model.removeValue(forKey: key))
            default:
                compact[key] = nil
                model[key] = nil
            }
            #expect(compact[key] == model[key] && compact.count == model.count)
            if step % 500 == 499 { #expect((0..<keys).allSatisfy { compact[$0] == model[$0] }) }
            if step == 2_500 {
                compact.removeAll()
                model.removeAll()
                #expect(compact.isEmpty)
            }
        }
    }

    @Test func anUpdateKeepsOneEntry() {
        var compact = CompactDictionary<String, Int>()
        compact["a"] = 1
        compact["a"] = 2
        #expect(compact.count == 1 && compact["a"] == 2 && compact["b"] == nil)
    }
}
