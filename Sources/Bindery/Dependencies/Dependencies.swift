/// What view models may depend on besides their arguments, by key: time, randomness, ids, and any
/// ``DependencyKey`` of your own (an API client, a store shared by several view model types).
/// Injected, never global, so that a test or a transcript can pin them down.
///
/// ```swift
/// registry.register("bottomBar") { context in
///     BottomBarViewModel(clock: context.dependencies.clock, random: context.dependencies.random)
/// }
/// ```
/// One instance serves a whole daemon: each value is made on first use and then shared.
@MainActor
public final class Dependencies {
    /// True under `--deterministic`: a virtual clock, a seeded random source, sequential ids.
    public let isDeterministic: Bool
    private var values: [ObjectIdentifier: Any] = [:]

    /// The live values: the real clock, the system's randomness, random UUIDs.
    public static func live() -> Dependencies {
        Dependencies(isDeterministic: false)
    }

    /// The deterministic values: a ``VirtualClock``, randomness seeded with `seed`, sequential ids.
    public static func deterministic(seed: UInt64 = 1) -> Dependencies {
        let dependencies = Dependencies(isDeterministic: true)
        dependencies[RandomKey.self] = RandomSource(seed: seed)
        return dependencies
    }

    private init(isDeterministic: Bool) {
        self.isDeterministic = isDeterministic
    }

    /// The value of `key`: made on first use from the key's live or deterministic value, or the one
    /// put in place before.
    public subscript<Key: DependencyKey>(key: Key.Type) -> Key.Value {
        get {
            if let value = values[ObjectIdentifier(key)] { return value as! Key.Value }
            let value = isDeterministic ? Key.deterministicValue(self) : Key.liveValue(self)
            values[ObjectIdentifier(key)] = value
            return value
        }
        set {
            values[ObjectIdentifier(key)] = newValue
        }
    }

    /// The clock view models sleep on: `ContinuousClock`, or a ``VirtualClock`` when deterministic.
    public var clock: any Clock<Duration> { self[ClockKey.self] }
    /// Random numbers: the system's, or seeded when deterministic.
    public var random: RandomSource { self[RandomKey.self] }
    /// Ids for new model objects: random UUIDs, or "1", "2", ... when deterministic.
    public var ids: IDSource { self[IDKey.self] }

    /// The daemon's dependencies while a command runs — its closure, what it calls, and the tasks it
    /// starts — so an exposure can hand a command a service the view model does not keep:
    ///
    /// ```swift
    /// Command("sync") { model in await model.sync(with: Dependencies.current![SyncServiceKey.self]) }
    /// ```
    ///
    /// Nil outside a command (use `context.dependencies` in a registration's factory).
    @TaskLocal public static var current: Dependencies?
}

/// The clock; see ``Dependencies/clock``.
public enum ClockKey: DependencyKey {
    public static func liveValue(_ dependencies: Dependencies) -> any Clock<Duration> { ContinuousClock() }
    public static func deterministicValue(_ dependencies: Dependencies) -> any Clock<Duration> { VirtualClock() }
}

/// The random source; see ``Dependencies/random``.
public enum RandomKey: DependencyKey {
    public static func liveValue(_ dependencies: Dependencies) -> RandomSource { RandomSource() }
    public static func deterministicValue(_ dependencies: Dependencies) -> RandomSource { RandomSource(seed: 1) }
}

/// The id source; see ``Dependencies/ids``.
public enum IDKey: DependencyKey {
    public static func liveValue(_ dependencies: Dependencies) -> IDSource { IDSource(random: dependencies.random) }
    public static func deterministicValue(_ dependencies: Dependencies) -> IDSource { IDSource() }
}
