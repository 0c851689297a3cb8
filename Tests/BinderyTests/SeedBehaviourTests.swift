import Testing
@testable import Bindery
import SeedViewModels

/// The seed view models' own logic, driven directly with injected dependencies.
@MainActor
@Suite struct SeedBehaviourTests {
    @Test func loginTakesOneAndAHalfSecondsOnTheInjectedClock() async throws {
        let clock = VirtualClock()
        let model = LoginViewModel(api: UserAPI(clock: clock))
        #expect(!model.loginInputValid)
        model.firstName = "Ada"
        model.lastName = "Lovelace"
        #expect(model.loginInputValid)
        let login = ClockTask(clock) { try await model.login() }
        await waitUntil { clock.sleeperCount == 1 }
        #expect(model.userLoadingInProgress)
        #expect(!model.loginInputValid)
        await clock.advance(by: .milliseconds(1499))
        #expect(model.loggedInUser == nil)
        await clock.advance(by: .milliseconds(1))
        let user = try await login.value()
        #expect(user == SeedViewModels.User(firstName: "Ada", lastName: "Lovelace", authToken: "123adasdsadasdasdasdd"))
        #expect(model.loggedInUser == user)
        #expect(!model.userLoadingInProgress)
    }

    @Test func loginFailsForMalloryWithAMessage() async throws {
        let clock = VirtualClock()
        let model = LoginViewModel(api: UserAPI(clock: clock))
        model.firstName = "Mallory"
        model.lastName = "M"
        let login = ClockTask(clock) { try await model.login() }
        await waitUntil { clock.sleeperCount == 1 }
        await clock.advance(by: .milliseconds(1500))
        await #expect(throws: CommandError.self) { try await login.value() }
        #expect(model.errorMessage == "The user API rejected Mallory M")
        #expect(!model.userLoadingInProgress)
    }

    @Test func aCancelledLoginResetsTheLoadingState() async throws {
        let clock = VirtualClock()
        let model = LoginViewModel(api: UserAPI(clock: clock))
        model.firstName = "Ada"
        model.lastName = "L"
        let login = ClockTask(clock) { try await model.login() }
        await waitUntil { clock.sleeperCount == 1 }
        login.cancel()
        await #expect(throws: CancellationError.self) { try await login.value() }
        #expect(!model.userLoadingInProgress)
        #expect(clock.sleeperCount == 0)
    }

    @Test func thePackageSummaryFollowsTheNestedModel() {
        let model = PackageViewModel(package: .makeExample(), random: RandomSource(seed: 1))
        model.recipientFirstName = "Grace"
        model.street = "37 Christie St"
        model.addRandomItem()
        model.addRandomItem()
        #expect(model.contents.count == 2)
        #expect(model.contents.allSatisfy { $0.title == "Light bulb" && (200...300).contains($0.weight) })
        let weights = model.contents.map { "Light bulb \($0.weight)" }.joined(separator: ", ")
        #expect(model.summary == """
            Recipient: Grace Lovelace
            Postal address: 37 Christie St
            London SW1Y 4JH
            United Kingdom
            Contents: \(weights)
            """)
    }

    @Test func theSameSeedGivesTheSameItems() {
        let first = PackageViewModel(package: .makeExample(), random: RandomSource(seed: 9))
        let second = PackageViewModel(package: .makeExample(), random: RandomSource(seed: 9))
        for _ in 0..<5 { first.addRandomItem(); second.addRandomItem() }
        #expect(first.contents == second.contents)
    }

    @Test func elementsPassTheirOwnPropertiesThrough() throws {
        let hydrogen = try ElementViewModel(symbol: "h")
        #expect(hydrogen.name == "Hydrogen")
        #expect(hydrogen.symbol == "H")
        #expect(hydrogen.numberDescription == "Number: 1")
        #expect(hydrogen.weightDescription == "Weight: 1.008")
        #expect(ChemicalElement.periodicTable.count == 20)
        #expect(ChemicalElement.periodicTable.map(\.atomicNumber) == Array(1...20))
        #expect(throws: OpenError.self) { try ElementViewModel(symbol: "Xx") }
    }

    @Test func savingAMovieReachesEveryList() {
        let store = MovieStore(ids: IDSource())
        let lists = [MovieListViewModel(movieStore: store), MovieListViewModel(movieStore: store)]
        let form = AddMovieViewModel(movieStore: store)
        #expect(!form.canSave)
        form.title = "Alien"
        form.rating = .excellent
        #expect(form.canSave)
        let movie = form.save()
        #expect(movie == Movie(id: "1", fullTitle: "Alien", givenRating: .excellent))
        #expect(lists.allSatisfy { $0.movies == [movie] })
    }

    @Test func theBottomBarTicksEveryTwoSecondsUntilCancelled() async {
        let clock = VirtualClock()
        let model = BottomBarViewModel(clock: clock, random: RandomSource(seed: 1))
        let timer = clock.run { await model.runTimer() }
        await waitUntil { clock.sleeperCount == 1 }
        await clock.advance(by: .milliseconds(1999))
        #expect(model.text == "")
        await clock.advance(by: .milliseconds(1))
        #expect(model.text == "Random number: 56")  // SplitMix64 with seed 1: 56, 74, ...
        await clock.advance(by: .milliseconds(2000))
        #expect(model.text == "Random number: 74")
        timer.cancel()
        await timer.value
        #expect(clock.sleeperCount == 0)
    }

    @Test func idsAreSequentialOrUUIDs() {
        let sequential = IDSource()
        #expect([sequential.next(), sequential.next()] == ["1", "2"])
        let uuid = IDSource(random: RandomSource(seed: 3)).next()
        #expect(uuid.count == 36)
        #expect(uuid.split(separator: "-").map(\.count) == [8, 4, 4, 4, 12])
        #expect(Array(uuid)[14] == "4")
    }
}

/// Waits, letting other tasks run, until `condition` holds (or five seconds pass).
@MainActor
func waitUntil(_ condition: () -> Bool) async {
    let deadline = ContinuousClock.now + .seconds(5)
    while !condition(), ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(1)) }
}

/// A task the virtual clock waits for, with its result.
@MainActor
final class ClockTask<Value> {
    private var result: Result<Value, any Error>?
    private let task: Task<Void, Never>

    init(_ clock: VirtualClock, _ body: @escaping @MainActor () async throws -> Value) {
        var box: ((Result<Value, any Error>) -> Void)?
        task = clock.run {
            do { box?(.success(try await body())) } catch { box?(.failure(error)) }
        }
        box = { [unowned self] in result = $0 }
        _ = box
    }

    func cancel() { task.cancel() }

    func value() async throws -> Value {
        await task.value
        return try result!.get()
    }
}
