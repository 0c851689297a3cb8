// A daemon of your own: the example the README shows, built with the public API only.
import BinderyServer   // re-exports Bindery (the runtime) and Observation

@MainActor @Observable final class CounterViewModel {
    var step = 1
    private(set) var count = 0
    var summary: String { "count \(count), step \(step)" }   // computed: pushed when count or step change
    var canIncrement: Bool { count < 100 }

    func increment() {
        count += step
        print("incremented to \(count)")   // a stray print: it lands on stderr, never in the protocol
    }
}

extension CounterViewModel: ViewModel {
    static var exposure: Exposure<CounterViewModel> {
        Exposure {
            Field("step", \.step)                       // writable by setField
            Output("count", \.count)                    // read-only
            Output("summary", \.summary)
            Command("increment", enabled: \.canIncrement) { $0.increment() }
        }
    }
}

var registry = ViewModelRegistry()
registry.register("counter") { _ in CounterViewModel() }
BinderyDaemon.run(registry: registry, name: "counterd", version: "1.0.0")
