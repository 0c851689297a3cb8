/// What a view model may depend on besides its arguments: time, randomness, ids and stores shared
/// by every session of the daemon. Injected, never global, so that a test or a transcript can pin
/// them down.
///
/// ```swift
/// registry.register("bottomBar") { context in
///     BottomBarViewModel(clock: context.dependencies.clock, random: context.dependencies.random)
/// }
/// ```
@MainActor
public final class Dependencies {
    public let clock: any BinderyClock
    public let random: RandomSource
    public let ids: IDSource
    /// True under `--deterministic`: a virtual clock, a seeded random source, sequential ids.
    public let isDeterministic: Bool
    private var stores: [ObjectIdentifier: AnyObject] = [:]

    /// The real clock, system randomness and random UUIDs.
    public static func live() -> Dependencies {
        let random = RandomSource()
        return Dependencies(clock: SystemClock(), random: random, ids: IDSource(random: random), isDeterministic: false)
    }

    /// A virtual clock, randomness seeded with `seed`, and sequential ids.
    public static func deterministic(seed: UInt64) -> Dependencies {
        Dependencies(clock: VirtualClock(), random: RandomSource(seed: seed), ids: IDSource(), isDeterministic: true)
    }

    public init(clock: any BinderyClock, random: RandomSource, ids: IDSource, isDeterministic: Bool) {
        self.clock = clock
        self.random = random
        self.ids = ids
        self.isDeterministic = isDeterministic
    }

    /// The one instance of `Store` in this daemon, made by `make` the first time it is asked for:
    /// how two view model types share a model, like the seeds' MovieStore.
    public func shared<Store: AnyObject>(_ type: Store.Type, make: () -> Store) -> Store {
        if let store = stores[ObjectIdentifier(type)] { return store as! Store }
        let store = make()
        stores[ObjectIdentifier(type)] = store
        return store
    }
}
