import Bindery

/// Seed 004, @StateObject: a bottom bar whose text a timer changes every 2 seconds.
///
/// The timer is the session's: it starts when the session opens and stops when it closes, which
/// is the lifecycle `@StateObject` gives a view model in SwiftUI.
@MainActor @Observable
public final class BottomBarViewModel {
    public static let interval = Duration.seconds(2)
    public private(set) var text = ""

    private let clock: any Clock<Duration>
    private let random: RandomSource

    public init(clock: any Clock<Duration>, random: RandomSource) {
        self.clock = clock
        self.random = random
    }

    /// Picks a new random number every interval until cancelled.
    public func runTimer() async {
        while true {
            do {
                try await clock.sleep(for: Self.interval)
            } catch {
                return
            }
            text = "Random number: \(random.int(in: 0..<100))"
        }
    }
}

extension BottomBarViewModel: ViewModel {
    public static var exposure: Exposure<BottomBarViewModel> {
        Exposure {
            Output("text", \.text)
        }
    }
}
