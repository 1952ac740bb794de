import SeededRandom
import Testing

@testable import StatefulEngine

/// Resolvers that share their rules (see `RuleTable`), driven by random binds, removals,
/// applies and cache releases while setters and values' deinits call back — into the resolver
/// that runs them or another on the same table — at any point of an operation: during an
/// apply, a removal, the writing back of defaults, the release of a table left.
///
/// Model-free: after every operation, each bound property of a live target holds what its
/// resolver says for its applied state (`value(for:of:in:)`), and a resolver on shareable rules
/// holds a binding for each pair the table's binds name, and no other. Each resolver binds
/// targets of its own, so a property has one resolver to agree with. The fuzz that found a
/// stale value after `removeAllValues()` on shared rules (a setter or a deinit bound during the
/// removal: see `BindingStore.forgetTable()`) was of this kind.
///
/// On the main actor, as a control's resolvers are: a shared table is used from one isolation
/// domain.
@MainActor @Suite("StateResolver: shared rules under setters and value deinits that call back")
struct SharedRulesReentrancyTests {
    /// A bound value whose deinit runs its armed callback (once).
    final class Hook {
        let name: Int
        var onDeinit: (() -> Void)?
        init(_ name: Int) { self.name = name }
        deinit { onDeinit?() }
    }

    /// A target: observed properties, whose setters run the armed callback (once), and `b`, a
    /// plain stored property written in place.
    final class Target {
        var a = 0 { didSet { fire() } }
        var b = 0
        var title = "t0" { didSet { fire() } }
        /// Its old value is released once the new one is stored (`oldValue` holds it): a deinit
        /// that writes the property while the store releases it would access it twice at once.
        var hook: Hook? {
            didSet {
                _ = oldValue
                fire()
            }
        }
        var onSet: (() -> Void)?

        private func fire() {
            guard let callback = onSet else { return }
            onSet = nil
            callback()
        }
    }

    /// An operation on one resolver (and its targets: by index), or of the fuzz itself.
    enum Operation {
        /// Property 0 `a`, 1 `b`, 2 `title`, 3 `hook`; value and descriptor by index.
        case bind(target: Int, property: Int, value: Int, descriptor: Int)
        case removeValue(target: Int, property: Int, descriptor: Int)
        case removeValues(target: Int, property: Int)
        case removeTarget(target: Int)
        case removeAll
        case apply(state: Int)
        case releaseCaches
        /// The target is let go of, and a new one takes its place.
        case dropTarget(target: Int)
        /// The target's next write runs operations on resolver `on`.
        case armSetter(target: Int, on: Int)
        /// The hook's deinit runs operations on resolver `on`; the fuzz lets go of it (only
        /// rules, targets and defaults hold it) and a new hook takes its place.
        case armDeinit(hook: Int, on: Int)
        /// An armed callback runs `count` operations (in the log).
        case callback(count: Int)
        /// A top-level step begins (in the log).
        case step(Int)
        /// The first `count` binds the resolver made since it last removed every value (or
        /// before, while it removes them), made again with new values: a control that sets
        /// itself up again. Their versions in the new table are those of the table left.
        case rebind(count: Int)
    }

    final class Fuzz {
        static let ints = [1, 2, 3]
        static let strings = ["x", "y"]
        static let hookCount = 3
        /// A few masks and priorities: binds of the same descriptor again replace a value.
        static let descriptors: [StateDescriptor] = [
            .containing([], priority: 1),
            .containing(.selected),
            .containing(.highlighted, priority: 5),
            .exactly([.selected, .highlighted]),
            .containingAny([.highlighted, .disabled], priority: 7),
            .containingNone(.selected, priority: 3),
            .notContaining(.disabled, priority: 2),
        ]
        static let states: [ControlState] = [
            .normal, .selected, .highlighted, .disabled, [.selected, .highlighted], [.selected, .disabled],
        ]

        static let resolverCount = 4
        static let targetsPerResolver = 3
        static let propertyCount = 4

        let seed: UInt64
        var random: SplitMix64
        let resolvers: [StateResolver]
        /// The targets of resolver *i* at index *i*: only it binds them.
        var targets: [[Target]]
        var hooks: [Hook]
        private var nextHookName = 0
        /// Callbacks run so far.
        var callbacksRun = 0
        /// Every operation run, with its depth of nesting in callbacks: the trail a failure shows.
        var log: [(depth: Int, resolver: Int, operation: Operation)] = []
        var depth = 0
        var step = 0
        /// Set once the walk ends: callbacks of values and targets still held do nothing.
        var finished = false
        /// The binds (target, property, descriptor) each resolver made since it last removed
        /// every value, and before.
        private var binds = Array(repeating: [(Int, Int, Int)](), count: resolverCount)
        private var bindsBeforeRemoval = Array(repeating: [(Int, Int, Int)](), count: resolverCount)

        init(seed: UInt64) {
            self.seed = seed
            random = SplitMix64(seed: seed)
            resolvers = (0..<Self.resolverCount).map { _ in StateResolver(sharingRules: true) }
            targets = (0..<Self.resolverCount).map { _ in (0..<Self.targetsPerResolver).map { _ in Target() } }
            hooks = []
            for _ in 0..<Self.hookCount { hooks.append(makeHook()) }
        }

        private func makeHook() -> Hook {
            nextHookName += 1
            return Hook(nextHookName)
        }

        func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &random) }

        /// A bind of a value from a small set (resolvers that make the same binds share their
        /// rules), mostly; nested in a callback, also the binds made again (`rebind`).
        func randomResolverOperation(nested: Bool) -> Operation {
            let (target, property) = (int(0..<Self.targetsPerResolver), int(0..<Self.propertyCount))
            let descriptor = int(0..<Self.descriptors.count)
            // Weights: bind, apply, removeValue, removeValues(for:of:), removeValues(of:),
            // removeAllValues, releaseCaches, rebind.
            let weights = nested ? [40, 8, 7, 5, 4, 15, 6, 15] : [50, 16, 4, 3, 3, 20, 5, 0]
            var roll = int(0..<weights.reduce(0, +))
            let kind = weights.firstIndex { weight in
                roll -= weight
                return roll < 0
            }!
            switch kind {
            case 0: return .bind(target: target, property: property, value: int(0..<6), descriptor: descriptor)
            case 1: return .apply(state: int(0..<Self.states.count))
            case 2: return .removeValue(target: target, property: property, descriptor: descriptor)
            case 3: return .removeValues(target: target, property: property)
            case 4: return .removeTarget(target: target)
            case 5: return .removeAll
            case 6: return .releaseCaches
            default: return .rebind(count: int(1..<5))
            }
        }

        /// Runs `operation` on resolver `index`, and logs it.
        func perform(_ operation: Operation, on index: Int) {
            log.append((depth, index, operation))
            let resolver = resolvers[index]
            switch operation {
            case .bind(let target, let property, let value, let descriptor):
                binds[index].append((target, property, descriptor))
                let (target, descriptor) = (targets[index][target], Self.descriptors[descriptor])
                do {
                    switch property {
                    case 0: try resolver.setValue(Self.ints[value % Self.ints.count], for: \.a, of: target, when: descriptor)
                    case 1: try resolver.setValue(Self.ints[value % Self.ints.count], for: \.b, of: target, when: descriptor)
                    case 2: try resolver.setValue(Self.strings[value % Self.strings.count], for: \.title, of: target, when: descriptor)
                    default: try resolver.setValue(hooks[value % Self.hookCount] as Hook?, for: \.hook, of: target, when: descriptor)
                    }
                } catch { Issue.record(error, "seed \(seed), step \(step): \(operation)") }
            case .removeValue(let target, let property, let descriptor):
                let (target, descriptor) = (targets[index][target], Self.descriptors[descriptor])
                switch property {
                case 0: resolver.removeValue(for: \Target.a, of: target, when: descriptor)
                case 1: resolver.removeValue(for: \Target.b, of: target, when: descriptor)
                case 2: resolver.removeValue(for: \Target.title, of: target, when: descriptor)
                default: resolver.removeValue(for: \Target.hook, of: target, when: descriptor)
                }
            case .removeValues(let target, let property):
                let target = targets[index][target]
                switch property {
                case 0: resolver.removeValues(for: \Target.a, of: target)
                case 1: resolver.removeValues(for: \Target.b, of: target)
                case 2: resolver.removeValues(for: \Target.title, of: target)
                default: resolver.removeValues(for: \Target.hook, of: target)
                }
            case .removeTarget(let target): resolver.removeValues(of: targets[index][target])
            case .removeAll:
                (bindsBeforeRemoval[index], binds[index]) = (binds[index], [])
                resolver.removeAllValues()
            case .apply(let state):
                // Setters that keep requesting states may make an apply give up: allowed.
                do { try resolver.apply(Self.states[state]) } catch {
                    if error != .cycle { Issue.record(error, "seed \(seed), step \(step): \(operation)") }
                }
            case .releaseCaches: resolver.releaseCaches()
            case .dropTarget(let target):
                let dropped = targets[index][target]
                // Released once the array is written: its deinit may run a hook's callback.
                withExtendedLifetime(dropped) { targets[index][target] = Target() }
            case .armSetter(let target, let callee):
                targets[index][target].onSet = { [weak self] in self?.runCallback(on: callee) }
            case .armDeinit(let hook, let callee):
                let armed = hooks[hook]
                armed.onDeinit = { [weak self] in self?.runCallback(on: callee) }
                withExtendedLifetime(armed) { hooks[hook] = makeHook() }
            case .callback, .step: break
            case .rebind(let count):
                let made = binds[index].isEmpty ? bindsBeforeRemoval[index] : binds[index]
                depth += 1
                for (target, property, descriptor) in made.prefix(count) {
                    perform(.bind(target: target, property: property, value: int(0..<6), descriptor: descriptor), on: index)
                }
                depth -= 1
            }
        }

        /// An armed setter or deinit: 1–3 operations on resolver `index`, the one that runs it or
        /// another (none once the walk ended).
        func runCallback(on index: Int) {
            guard !finished else { return }
            callbacksRun += 1
            let count = int(1..<4)
            log.append((depth, index, .callback(count: count)))
            depth += 1
            for _ in 0..<count { perform(randomResolverOperation(nested: true), on: index) }
            depth -= 1
        }

        /// One top-level operation: on every resolver of a group (all, a pair or one: resolvers
        /// that made the same binds share their rules), or arming a callback.
        func step(_ step: Int) {
            self.step = step
            log.append((0, -1, .step(step)))
            let roll = int(0..<100)
            if roll < 14 {
                let owner = int(0..<Self.resolverCount)
                // The callee: mostly the owner (a removal that binds again on its own resolver).
                let callee = int(0..<3) > 0 ? owner : int(0..<Self.resolverCount)
                return perform(.armSetter(target: int(0..<Self.targetsPerResolver), on: callee), on: owner)
            }
            if roll < 22 {
                return perform(.armDeinit(hook: int(0..<Self.hookCount), on: int(0..<Self.resolverCount)), on: 0)
            }
            let operation = roll < 24 ? .dropTarget(target: int(0..<Self.targetsPerResolver)) : randomResolverOperation(nested: false)
            let group: [Int]
            switch int(0..<20) {
            case 0..<16: group = Array(0..<Self.resolverCount)
            case 16..<19:
                let first = int(0..<Self.resolverCount)
                group = [first, (first + 1 + int(0..<Self.resolverCount - 1)) % Self.resolverCount]
            default: group = [int(0..<Self.resolverCount)]
            }
            // A removal of every value writes back defaults through a setter armed to bind again
            // on the resolver that removes them, on one resolver of the group.
            if case .removeAll = operation {
                let index = group[int(0..<group.count)]
                perform(.armSetter(target: int(0..<Self.targetsPerResolver), on: index), on: index)
            }
            for index in group { perform(operation, on: index) }
        }

        /// Whether two resolvers are on one table (not the shared empty one).
        var isSharing: Bool {
            let tables = resolvers.map(\.rules).filter { $0 !== RuleTable.empty }
            return tables.indices.contains { i in tables[(i + 1)...].contains { $0 === tables[i] } }
        }

        /// The first broken invariant, if any: a bound property that does not hold its resolver's
        /// value for the applied state, or bindings that are not the pairs of shareable rules.
        func brokenInvariant() -> String? {
            for (index, resolver) in resolvers.enumerated() {
                let state = resolver.appliedState
                for (number, target) in targets[index].enumerated() {
                    let place = "resolver \(index), target \(number), in \(state)"
                    if let value = resolver.value(for: \.a, of: target, in: state), target.a != value {
                        return "\(place): a is \(target.a), the resolver says \(value)"
                    }
                    if let value = resolver.value(for: \.b, of: target, in: state), target.b != value {
                        return "\(place): b is \(target.b), the resolver says \(value)"
                    }
                    if let value = resolver.value(for: \.title, of: target, in: state), target.title != value {
                        return "\(place): title is \(target.title), the resolver says \(value)"
                    }
                    if let value = resolver.value(for: \.hook, of: target, in: state), target.hook !== value {
                        return "\(place): hook is \(target.hook?.name ?? 0), the resolver says \(value?.name ?? 0)"
                    }
                }
                if resolver.rules === RuleTable.empty {
                    if !resolver.bindings.isEmpty { return "resolver \(index): bindings on the shared empty table" }
                } else if let history = resolver.rules.history {
                    let pairs = Set(history.binds.map { StateResolver.key($0.target, $0.keyPath) })
                    if pairs != Set(resolver.bindings.sortedKeys) || resolver.ruleCount != history.count {
                        return
                            "resolver \(index): \(resolver.bindings.count) bindings and \(resolver.ruleCount) rules on a table of \(history.count) binds to \(pairs.count) pairs"
                    }
                }
            }
            return nil
        }

        /// The last operations, for a failure's message.
        func trail(_ count: Int) -> String {
            log.suffix(count).map { entry in
                if case .step(let step) = entry.operation { return "step \(step)" }
                return String(repeating: "    ", count: entry.depth + 1) + "r\(entry.resolver) \(entry.operation)"
            }.joined(separator: "\n")
        }
    }

    /// Random operations on four sharing resolvers, with setters and values' deinits armed to
    /// run operations when they next run; after each, every bound property holds what its
    /// resolver says.
    @Test(arguments: 0..<48 as Range<UInt64>)
    func boundPropertiesHoldTheirResolversValues(seed: UInt64) {
        let steps = 300
        let fuzz = Fuzz(seed: seed)
        defer { fuzz.finished = true }
        // Every resolver numbers the key paths alike (ids in the order first seen): their
        // binds can be the same.
        for index in 0..<Fuzz.resolverCount {
            for property in 0..<Fuzz.propertyCount {
                fuzz.perform(.bind(target: 0, property: property, value: 0, descriptor: 1), on: index)
            }
        }
        var stepsSharing = 0
        for step in 0..<steps {
            fuzz.step(step)
            if let broken = fuzz.brokenInvariant() {
                Issue.record("seed \(seed), step \(step): \(broken)\n\(fuzz.trail(40))")
                return
            }
            if fuzz.isSharing { stepsSharing += 1 }
        }
        // The walk did share tables, and ran callbacks.
        #expect(stepsSharing > steps / 4, "seed \(seed): \(stepsSharing) steps of \(steps) sharing")
        #expect(fuzz.callbacksRun > steps / 10, "seed \(seed): \(fuzz.callbacksRun) callbacks")
    }
}
