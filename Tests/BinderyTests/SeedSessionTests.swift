import Testing
import Bindery
import BinderyTesting
import SeedViewModels

/// The seed view models, each driven as a client drives it, every change it pushes asserted: the
/// example to copy for a view model of your own (see the README, "Write your own view models").
@MainActor
@Suite struct SeedSessionTests {
    @Test func emailValidatesAsYouType() throws {
        let form = try TestSession { _ in EmailViewModel() }
        try form.set("email", "ada@example") {
            $0["email"] = "ada@example"
        }
        try form.set("email", "ada@example.com") {
            $0["email"] = "ada@example.com"
            $0["isValid"] = true
            $0["validationMessage"] = "Email is valid"
        }
    }

    @Test func surveyDerivesItsStrings() throws {
        let survey = try TestSession { _ in SurveyViewModel() }
        try survey.set("yearsOfExperience", 3.0) {
            $0["yearsOfExperience"] = 3.0
            $0["experienceString"] = "3.0 yrs"
            $0["prettyString"] = "Name: --\nCompany: --\nExperience: 3.0 yrs\nCurrent Employer?: NO\napprox Salary: --\nComments: --"
        }
        // A Float cannot hold 16777217: the client is told what the model stored.
        try survey.set("approxSalary", 16_777_217) {
            $0["approxSalary"] = 16_777_216.0
            $0["salaryString"] = "16777.217k"
            $0["prettyString"] = "Name: --\nCompany: --\nExperience: 3.0 yrs\nCurrent Employer?: NO\napprox Salary: 16777.217k\nComments: --"
        }
    }

    @Test func loginTakesOneAndAHalfSecondsOnTheVirtualClock() async throws {
        let login = try TestSession { context in LoginViewModel(api: context.dependencies[UserAPIKey.self]) }
        try login.set("firstName", "Ada") { $0["firstName"] = "Ada" }
        try login.set("lastName", "Lovelace") {
            $0["lastName"] = "Lovelace"
            $0["loginInputValid"] = true
            $0["login.enabled"] = true
        }
        let call = try login.invoke("login") {
            $0["loginInputValid"] = false
            $0["userLoadingInProgress"] = true
            $0["login.enabled"] = false
            $0["login.running"] = true
        }
        await login.advance(by: .milliseconds(1499))
        #expect(!call.isFinished)
        let user: JSONValue = ["firstName": "Ada", "lastName": "Lovelace", "authToken": "123adasdsadasdasdasdd"]
        await login.advance(by: .milliseconds(1)) {
            $0["loginInputValid"] = true
            $0["userLoadingInProgress"] = false
            $0["loggedInUser"] = user
            $0["login.enabled"] = true
            $0["login.running"] = false
        }
        #expect(try call.result() == user)
    }

    @Test func loginFailsForMallory() async throws {
        let login = try TestSession { context in LoginViewModel(api: context.dependencies[UserAPIKey.self]) }
        try login.set("firstName", "Mallory") { $0["firstName"] = "Mallory" }
        try login.set("lastName", "M") {
            $0["lastName"] = "M"
            $0["loginInputValid"] = true
            $0["login.enabled"] = true
        }
        let call = try login.invoke("login") {
            $0["loginInputValid"] = false
            $0["userLoadingInProgress"] = true
            $0["login.enabled"] = false
            $0["login.running"] = true
        }
        await login.advance(by: .milliseconds(1500)) {
            $0["loginInputValid"] = true
            $0["userLoadingInProgress"] = false
            $0["errorMessage"] = "The user API rejected Mallory M"
            $0["login.enabled"] = true
            $0["login.running"] = false
        }
        #expect(throws: CommandError.self) { try call.result() }
    }

    @Test func aCancelledLoginResetsTheLoadingState() async throws {
        let login = try TestSession { context in LoginViewModel(api: context.dependencies[UserAPIKey.self]) }
        try login.set("firstName", "Ada") { $0["firstName"] = "Ada" }
        try login.set("lastName", "L") {
            $0["lastName"] = "L"
            $0["loginInputValid"] = true
            $0["login.enabled"] = true
        }
        let call = try login.invoke("login") {
            $0["loginInputValid"] = false
            $0["userLoadingInProgress"] = true
            $0["login.enabled"] = false
            $0["login.running"] = true
        }
        call.cancel()
        await login.advance(by: .zero) {
            $0["loginInputValid"] = true
            $0["userLoadingInProgress"] = false
            $0["login.enabled"] = true
            $0["login.running"] = false
        }
        #expect(throws: CancellationError.self) { try call.result() }
        #expect(login.clock.sleeperCount == 0)
    }

    @Test func thePackageSummaryFollowsTheNestedModelAndTheSeed() throws {
        let package = try TestSession { context in
            PackageViewModel(package: .makeExample(), random: context.dependencies.random)
        }
        let summary = { (contents: String) -> JSONValue in
            .string("Recipient: Grace Lovelace\nPostal address: 12 St James's Square\nLondon SW1Y 4JH\nUnited Kingdom\nContents: \(contents)")
        }
        try package.set("recipientFirstName", "Grace") {
            $0["recipientFirstName"] = "Grace"
            $0["summary"] = summary("")
        }
        // Seed 1's first weight is 257: the same every run.
        try package.invoke("addRandomItem") {
            $0["contents"] = [["title": "Light bulb", "weight": 257]]
            $0["summary"] = summary("Light bulb 257")
        }
    }

    @Test func anElementPassesItsPropertiesThrough() throws {
        let helium = try TestSession(arguments: ["symbol": "he"]) { context in
            try ElementViewModel(symbol: context.argument("symbol"))
        }
        #expect(helium.state == [
            "name": "Helium", "symbol": "He", "atomicNumber": 2, "atomicWeight": 4.0026,
            "numberDescription": "Number: 2", "weightDescription": "Weight: 4.0026",
        ])
        #expect(throws: OpenError.self) { try TestSession(arguments: ["symbol": "Xx"]) { try ElementViewModel(symbol: $0.argument("symbol")) } }
    }

    @Test func aSavedMovieReachesEveryListSharingTheStore() throws {
        let dependencies = Dependencies.deterministic()
        let list = try TestSession(dependencies: dependencies) { MovieListViewModel(movieStore: $0.dependencies[MovieStoreKey.self]) }
        let form = try TestSession(dependencies: dependencies) { AddMovieViewModel(movieStore: $0.dependencies[MovieStoreKey.self]) }
        try form.set("title", "Alien") {
            $0["title"] = "Alien"
            $0["canSave"] = true
            $0["save.enabled"] = true
        }
        try form.set("rating", Movie.Rating.excellent) { $0["rating"] = "excellent" }
        let save = try form.invoke("save")
        let alien: JSONValue = ["id": "1", "fullTitle": "Alien", "givenRating": "excellent"]
        #expect(try save.result() == alien)
        list.receive { $0["movies"] = [alien] }
    }

    @Test func theBottomBarTicksEveryTwoSeconds() async throws {
        let bar = try TestSession { context in
            let model = BottomBarViewModel(clock: context.dependencies.clock, random: context.dependencies.random)
            context.task { await model.runTimer() }
            return model
        }
        await bar.advance(by: .milliseconds(1999))
        await bar.advance(by: .milliseconds(1)) { $0["text"] = "Random number: 56" }  // SplitMix64, seed 1
        await bar.advance(by: .seconds(2)) { $0["text"] = "Random number: 74" }
        #expect(bar.changeSets.count == 2)
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
